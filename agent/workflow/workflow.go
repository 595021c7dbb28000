// Package workflow is the state machine of a workflow (Discussion, Scoping,
// Research, Plan, Preflight, Pulsing, Review), its orchestration of pulses in a
// git worktree, and the durable record of everything it does.
//
// With a workflow's parallel setting above 1, independent pulses run at
// once in worktrees of their own and land in plan order (parallel.go, which
// also says why their leases live in the store rather than in the swarm
// package's queue).
package workflow
