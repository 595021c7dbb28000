// Package fleet runs workflows and jobs on a pool of worker processes
// through NATS JetStream: a work-queue stream of runs whose subjects carry
// the runs' labels, a key-value bucket of run records (state, worker,
// lease, branch, attempts) changed only by revision checks, a bucket of
// workers (labels, runs, heartbeat) and a stream of each run's events
// (run.Event) on a subject of its own.
//
// A worker claims a run by moving its record to Running with its name and
// a lease; it keeps the queue message unacknowledged and renews both (an
// in-progress ack and the record's lease) while it works. A worker that
// dies stops renewing: the message comes back after the lease, and the
// next worker takes the run over with a revision check, so a late result
// of the dead lease is refused (ErrLeaseLost).
//
// The connection is swarm's (swarm.Connect): an external NATS, or a
// project's embedded server reached through its unix socket.
package fleet

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	kernel "github.com/autarch-dev/autarch/agent/run"
)

// Names of the fleet's streams, buckets and subjects.
const (
	queueStream   = "AUTARCH_FLEET_QUEUE"
	queuePrefix   = "autarch.fleet.queue"
	eventsStream  = "AUTARCH_FLEET_EVENTS"
	eventsPrefix  = "autarch.fleet.events"
	answersPrefix = "autarch.fleet.answers"
	runsBucket    = "autarch_fleet_runs"
	workersBucket = "autarch_fleet_workers"
	noLabels      = "_"
)

// Kind is what a run runs.
type Kind string

// Kinds of fleet runs.
const (
	Workflow Kind = "workflow" // autarch run
	Job      Kind = "job"      // autarch job
)

// ParseKind reads a --kind flag ("" is a workflow).
func ParseKind(s string) (Kind, error) {
	switch Kind(s) {
	case "", Workflow:
		return Workflow, nil
	case Job:
		return Job, nil
	}
	return "", fmt.Errorf("kind %q: use workflow or job", s)
}

// State is where a fleet run is.
type State string

// States of a fleet run.
const (
	Queued    State = "Queued"
	Running   State = "Running"
	Completed State = "Completed"
	Failed    State = "Failed"
	Stopped   State = "Stopped"
)

// Ended reports whether nothing more happens to a run in s until someone
// resumes it.
func (s State) Ended() bool { return s == Completed || s == Failed || s == Stopped }

// Spec is what a submitter asks for. No key travels in it: a worker's
// model endpoint and key come from its own environment.
type Spec struct {
	Kind Kind `json:"kind"`
	// Repo is the git URL workers clone and push the run's branch to.
	Repo string `json:"repo"`
	// Base is the ref the run starts from; BaseCommit is the commit it
	// named when the run was submitted (checked out by every attempt).
	Base       string `json:"base,omitempty"`
	BaseCommit string `json:"baseCommit,omitempty"`
	// Mode is a job's mode (mechanic, genius); Path a workflow's path.
	Mode   string   `json:"mode,omitempty"`
	Path   string   `json:"path,omitempty"`
	Labels []string `json:"labels,omitempty"`
	Name   string   `json:"name,omitempty"`
	Task   string   `json:"task"`
	// Submitter names who submitted the run (their fleet budget).
	Submitter string `json:"submitter,omitempty"`
	// ConfigDigest is the digest of the repository configuration the
	// submitter trusted: a worker runs hooks only from configuration with
	// this digest.
	ConfigDigest string `json:"configDigest,omitempty"`
	// Yes approves every card and question (autarch submit --yes);
	// otherwise the submitter answers them while it waits.
	Yes bool `json:"yes,omitempty"`
	// Budget caps the run's spend in dollars (0: none).
	Budget float64 `json:"budget,omitempty"`
}

// Run is a fleet run's record in the runs bucket.
type Run struct {
	ID     string `json:"id"`
	Spec   Spec   `json:"spec"`
	State  State  `json:"state"`
	Reason string `json:"reason,omitempty"`
	// Worker holds the run until Lease (while Running).
	Worker string    `json:"worker,omitempty"`
	Lease  time.Time `json:"lease,omitzero"`
	// Branch is the run's branch on the remote once it has one; Commits
	// the checkpoints pushed to it, in order.
	Branch  string   `json:"branch,omitempty"`
	Commits []string `json:"commits,omitempty"`
	// Attempts counts the claims (a takeover after a lost lease is one).
	Attempts int `json:"attempts"`
	// StopAsked is set by autarch fleet stop: the worker stops the run.
	StopAsked bool `json:"stopAsked,omitempty"`
	// Saved is where the run's last saved durable state is (state.go).
	Saved     *StateRef `json:"saved,omitempty"`
	Submitted time.Time `json:"submitted"`
	Updated   time.Time `json:"updated"`
	// Revision is the record's revision in the bucket (not stored).
	Revision uint64 `json:"-"`
}

// Ref is the run as the kernel names it.
func (r Run) Ref() kernel.Ref {
	k := kernel.KindWorkflow
	if r.Spec.Kind == Job {
		k = kernel.KindJob
	}
	return kernel.Ref{Kind: k, ID: r.ID, Name: r.Spec.Name}
}

// Worker is a worker's record in the workers bucket.
type Worker struct {
	Name      string    `json:"name"`
	Labels    []string  `json:"labels,omitempty"`
	Runs      []string  `json:"runs,omitempty"`
	Heartbeat time.Time `json:"heartbeat"`
}

// Errors of the fleet.
var (
	// ErrLeaseLost: the run was taken over (or changed) since this worker
	// last wrote it; its result is refused.
	ErrLeaseLost = errors.New("fleet: the run's lease was lost to another worker; this worker's result is refused")
	// ErrNoRun: no fleet run has the id.
	ErrNoRun = errors.New("fleet: no such run")
)

var labelRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,31}$`) })

// maxLabels bounds a worker's labels: it listens on every subset.
const maxLabels = 6

// ParseLabels reads a comma-separated --labels flag: lower-case letters,
// digits and dashes, sorted, without repeats.
func ParseLabels(s string) ([]string, error) {
	var out []string
	for l := range strings.SplitSeq(s, ",") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		if !labelRE().MatchString(l) {
			return nil, fmt.Errorf("label %q: use lower-case letters, digits and dashes (up to 32)", l)
		}
		out = append(out, l)
	}
	slices.Sort(out)
	out = slices.Compact(out)
	if len(out) > maxLabels {
		return nil, fmt.Errorf("%d labels: give at most %d", len(out), maxLabels)
	}
	return out, nil
}

// queueSubject is where a run with labels is queued: one token per label,
// sorted ("_" for none), so that a worker listens on the subjects of the
// subsets of its labels.
func queueSubject(labels []string) string {
	if len(labels) == 0 {
		return queuePrefix + "." + noLabels
	}
	return queuePrefix + "." + strings.Join(labels, ".")
}

// subsets are the label sets a worker with labels serves (the empty one
// first).
func subsets(labels []string) [][]string {
	out := [][]string{nil}
	for _, l := range labels {
		n := len(out)
		for i := range n {
			out = append(out, append(slices.Clone(out[i]), l))
		}
	}
	for _, s := range out {
		slices.Sort(s)
	}
	return out
}

// NewID is a fresh run id (16 hex digits).
func NewID() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}

var idRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-f]{16}$`) })

// CheckID refuses what is not a run id (ids become subject tokens).
func CheckID(id string) error {
	if !idRE().MatchString(id) {
		return fmt.Errorf("%q is not a fleet run id (16 hex digits, as autarch submit printed)", id)
	}
	return nil
}
