// Package orchestrate runs a swarm (issue 21, spec/swarm-tools.md): several
// agents on one task, in rounds. Each round the orchestrator sets `phase`
// in the shared context, then runs every agent's turn in order (a model ⇄
// swarm tools loop: native function calling, or the JSON envelope for
// models without it); read-only tools run at once through the engine.
// After the agents, the fs_write proposals the engine queued go to the
// arbiter — a model answering the spec's STRICT JSON decisions, or a human
// — and, only with AllowWrite, the approved contents are written in the
// swarm's own worktree on its own branch (autarch/swarm-ID, never the
// user's folder) and committed: one commit per round.
//
// Durability: everything the swarm decides lives under the state dir
// (<git-common-dir>/autarch/swarms/ID): state.json (round, stage, the
// agent whose turn it is, the round's decisions before they are applied)
// and one conversation file per agent are replaced atomically after every
// step, and transcript.jsonl appends every event (decisions included). A
// process killed at any point resumes (Resume) from the last step written:
// an agent's turn continues from its last message (calls without results
// run again; the engine's proposals are collapsed when identical), the
// arbiter's recorded decisions are not asked again, and applying a round
// is idempotent (files are rewritten with the same content, the commit is
// made only when something changed). A swarm whose process died is listed
// as stopped (its run lock, an flock, is free).
//
// Session serves the editor (autarch.startSwarm and the other swarm
// methods: a background run per swarm, the human arbiter answering from
// the side panel through an Inbox); FanOut is the workflow's Research
// fan-out to explorer sub-agents (a read-only swarm whose findings are
// consolidated for the Research agent).
package orchestrate
