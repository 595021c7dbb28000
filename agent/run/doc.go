// Package run is the run kernel: what every kind of durable run
// (a workflow, a job, a swarm) shares, so that each engine keeps only its
// own steps and records.
//
// A run has an identity and a status (Ref, Kind, Status). While a process
// runs it, the process holds the run's lock (Locks: an flock released by
// the operating system when the process dies, even by SIGKILL, so a lock
// that can be taken means no one runs it). A run is stopped through its
// record, by this process or another; WatchStop notices and cancels it,
// and Active cancels the runs of this process directly. Background runs
// live in a Group bounded by the session that started them.
//
// What a run spends is counted by one Meter (tokens, money, model calls)
// against one Budget; a spent budget is a *LimitError naming the limit.
// What a run does is told as Events in one typed envelope (EventKind
// constants, typed Usage, an Outcome that can be Refused, the parent call
// id of a sub-agent's call). Questions waiting on a human (cards,
// approvals, reviews, escalations) are Questions of one table, keyed by
// run id like the run's messages and tool calls (in the store:
// agent/workflow/store).
//
// The package sits below agent/workflow, agent/job and swarm/orchestrate
// (cmd/autarch/deps_test.go) and imports only agent.
package run
