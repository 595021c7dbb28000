// Package workflow is the state machine of a workflow (Discussion, Scoping,
// Research, Plan, Preflight, Pulsing, Review), its orchestration of pulses in a
// git worktree, and the durable record of everything it does.
package workflow
