package run

import "fmt"

// Kind is the kind of a run.
type Kind string

// Kinds of runs.
const (
	KindWorkflow Kind = "workflow"
	KindJob      Kind = "job"
	KindSwarm    Kind = "swarm"
)

// Valid reports whether k is a known kind.
func (k Kind) Valid() bool {
	switch k {
	case KindWorkflow, KindJob, KindSwarm:
		return true
	}
	return false
}

// Ref is a run's identity: its kind, its id (unique across kinds in a
// store) and the name the user sees.
type Ref struct {
	Kind Kind   `json:"kind"`
	ID   string `json:"id"`
	Name string `json:"name,omitempty"`
}

// String is the run as the user names it.
func (r Ref) String() string {
	if r.Name != "" {
		return fmt.Sprintf("%s %s", r.Kind, r.Name)
	}
	return fmt.Sprintf("%s %s", r.Kind, r.ID)
}

// LockName is the name of the run's lock in a Locks directory: a
// workflow's id, "job-" and a job's id, "swarm-" and a swarm's id.
func (r Ref) LockName() string {
	if r.Kind == KindWorkflow {
		return r.ID
	}
	return string(r.Kind) + "-" + r.ID
}

// Status is where a run is in its life, common to every kind; each kind
// keeps its own finer status in its records and maps it here.
type Status string

// Statuses of runs.
const (
	// Running: a process runs it (or ran it and died: Recover finds out
	// through the lock).
	Running Status = "Running"
	// Waiting: a question waits on a human.
	Waiting Status = "Waiting"
	// Stopped: stopped by the user, a limit or a dead process; it can be
	// resumed.
	Stopped Status = "Stopped"
	// Failed: a run ended in an error; it can be resumed once the cause is
	// fixed.
	Failed Status = "Failed"
	// Done: it ended as it should; nothing more runs.
	Done Status = "Done"
)

// Resumable reports whether a run in this status can be resumed.
func (s Status) Resumable() bool { return s == Stopped || s == Failed || s == Waiting }

// Ended reports whether nothing more runs without the user (every status
// but Running).
func (s Status) Ended() bool { return s != Running }
