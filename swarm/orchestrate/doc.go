// Package orchestrate runs a swarm (issue 21, spec/swarm-tools.md): several
// agents on one task, in rounds. Each round the orchestrator sets `phase`
// in the shared context, then runs the agents' turns on the agent loop
// (agent.Agent, as a workflow's pulses: the same model call hooks, egress
// gate, meter and streaming), offering the swarm's tools (native function
// calling, or the JSON envelope for models without it) and running each
// call, in the model's order, through the swarm's engine.
//
// Turns run at once: up to Config.Concurrency (default min(agents, 4))
// goroutines, started in the swarm's order (so 1 is the agents one after
// another, each seeing the findings shared before its turn). They share
// the run's state under one mutex (tokens, rate-limit hits, improvements,
// the turns ended: State.Done); everything else they touch is their own
// (their conversation file) or the engine's. The first failure cancels the
// other turns (what they did is saved; a resume runs the turns not ended).
// The token budget (the run's agent.Meter) is checked before every model
// call and counted after it: once spent, the calls in flight finish and
// count (the overshoot is at most those), their tool calls run, and no
// turn calls the model again; none starts. Events are
// recorded and told one at a time, in the order they happen: the turns'
// events interleave, each naming its agent, each agent's in its order.
//
// Every tool call goes through the tool engine with the project's hooks
// (Config.Hooks, trusted configuration only): pre_tool_use may block it
// (the model reads "Blocked by hook: … (hook NAME)"), post_tool_use sees
// the result; the hooks get AUTARCH_AGENT (the agent) and AUTARCH_SWARM
// (the swarm's id). Each Run fires session_start and session_end. The
// agents' and the arbiter model's model calls go through pre_llm_call
// (which may block one) and post_llm_call, as the agent loop's do.
//
// The calls also go through the project's guardrails (Config.Guardrails),
// as the workflow's do: fs_write is a write for the engine (never asked
// about: it only proposes), so a protected path, a path leading to one
// through a symlink, a file the secret gate blocks, content a code rule
// forbids and the lines/files caps refuse it with "Guardrail: …".
//
// After the agents, the fs_write proposals the engine queued go to the
// arbiter — a model answering the spec's STRICT JSON decisions, or a human
// — and, only with AllowWrite, the approved contents are written in the
// swarm's own worktree on its own branch (autarch/swarm-ID, never the
// user's folder) and committed: one commit per round. A proposal is
// judged again when applied (applyProposal): it need not come from
// fs_write (anyone holding the project's NATS credentials can publish
// one), and the configuration may have changed since (it is read again).
// One whose path is in .git or .autarch, protected, blocked by the secret
// gate or leading through a symlink to any of those, or whose content is
// over swarm.MaxProposal, is recorded as rejected ("approved but refused
// when applied: …", in the state and the transcript) and nothing of it is
// written or committed.
//
// Durability: everything the swarm decides lives under the state dir
// (<git-common-dir>/autarch/swarms/ID): state.json (round, stage, the
// agents whose turn ended, the round's decisions before they are applied)
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
