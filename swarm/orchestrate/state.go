package orchestrate

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"sync"
	"time"

	"github.com/autarch-dev/autarch/agent"
	kernel "github.com/autarch-dev/autarch/agent/run"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/tools/verify"
)

// Swarm statuses.
const (
	StatusRunning = "running"
	StatusStopped = "stopped"
	StatusFailed  = "failed"
	StatusDone    = "done"
)

// Stages of a round.
const (
	stageAgents  = "agents"
	stageArbiter = "arbiter"
	stageApply   = "apply"
	stageDone    = "done"
)

// State is a swarm's durable state (state.json).
type State struct {
	ID         string              `json:"id"`
	Task       string              `json:"task"`
	Agents     []editor.SwarmAgent `json:"agents"`
	Rounds     int                 `json:"rounds"`
	Arbiter    string              `json:"arbiter"`
	AllowWrite bool                `json:"allow_write"`
	ReadOnly   bool                `json:"read_only,omitempty"`
	Base       string              `json:"base"`
	Branch     string              `json:"branch"`
	Worktree   string              `json:"worktree"`
	Status     string              `json:"status"`
	Reason     string              `json:"reason,omitempty"`
	// Round is the round under way (1-based); Stage its step; Done the
	// agents whose turn of the round ended (stage agents; turns run at
	// once, so in the order they ended) and Turn how many.
	Round int      `json:"round"`
	Stage string   `json:"stage"`
	Turn  int      `json:"turn"`
	Done  []string `json:"done,omitempty"`
	// Proposals are every proposal taken from the engine, with its
	// decision once decided (history of all rounds).
	Proposals []editor.SwarmProposal `json:"proposals"`
	// Improvements are the agents' improvement proposals (read-only rounds).
	Improvements []Improvement              `json:"improvements,omitempty"`
	RateLimits   []editor.SwarmRateLimitHit `json:"rate_limits,omitempty"`
	Commits      []string                   `json:"commits,omitempty"`
	// Baselines are what the quality gates found failing on the branch
	// before the swarm's first write (Baselined: they were looked for):
	// pre-existing, they do not count against the swarm.
	Baselines []tools.Baseline `json:"baselines,omitempty"`
	Baselined bool             `json:"baselined,omitempty"`
	// Gates is the last quality gate run on the branch: after round
	// GatesRound's writes, committed as GatesCommit.
	Gates       *verify.GateRun `json:"gates,omitempty"`
	GatesCommit string          `json:"gates_commit,omitempty"`
	GatesRound  int             `json:"gates_round,omitempty"`
	// Tokens counts every model call's tokens over all runs.
	Tokens    int       `json:"tokens,omitempty"`
	UpdatedAt time.Time `json:"updated_at"`
}

// Improvement is spec/swarm-tools.md's improvement proposal of one agent.
type Improvement struct {
	Agent string            `json:"agent"`
	Round int               `json:"round"`
	Items []ImprovementItem `json:"items"`
}

// ImprovementItem is one suggested change.
type ImprovementItem struct {
	Area      string `json:"area"`
	Change    string `json:"change"`
	Rationale string `json:"rationale"`
}

// validID is a swarm id: what newID makes.
var validID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-f]{12}$`) })

func newID() string {
	b := make([]byte, 6)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// store keeps one swarm's files under dir; safe for concurrent use.
type store struct {
	dir string
	mu  sync.Mutex
}

// Dir is where the swarms' state lives under a repository's state dir.
func Dir(stateDir string) string { return filepath.Join(stateDir, "swarms") }

func openStore(root, id string) (*store, error) {
	if !validID().MatchString(id) {
		return nil, fmt.Errorf("swarm id %q: an id is 12 hex digits (autarch swarm --list lists the swarms)", id)
	}
	return &store{dir: filepath.Join(root, id)}, nil
}

func (s *store) saveState(st *State) error {
	st.UpdatedAt = time.Now().UTC()
	return writeJSON(filepath.Join(s.dir, "state.json"), st)
}

func (s *store) loadState() (*State, error) {
	var st State
	b, err := os.ReadFile(filepath.Join(s.dir, "state.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("no swarm %s under %s: check the id (autarch swarm --list lists the swarms)", filepath.Base(s.dir), filepath.Dir(s.dir))
	}
	if err != nil {
		return nil, fmt.Errorf("read the swarm's state: %w", err)
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, fmt.Errorf("the swarm's state %s is damaged: %w", filepath.Join(s.dir, "state.json"), err)
	}
	return &st, nil
}

func (s *store) conversationPath(agentName string) string {
	return filepath.Join(s.dir, "agents", agentName+".json")
}

func (s *store) saveConversation(agentName string, msgs []agent.Message) error {
	return writeJSON(s.conversationPath(agentName), msgs)
}

func (s *store) loadConversation(agentName string) ([]agent.Message, error) {
	b, err := os.ReadFile(s.conversationPath(agentName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s's conversation: %w", agentName, err)
	}
	var msgs []agent.Message
	if err := json.Unmarshal(b, &msgs); err != nil {
		return nil, fmt.Errorf("%s's conversation %s is damaged: %w", agentName, s.conversationPath(agentName), err)
	}
	return msgs, nil
}

// record appends an event to transcript.jsonl (synced: the transcript
// records every decision).
func (s *store) record(ev editor.SwarmEvent) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return fmt.Errorf("swarm state folder: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(s.dir, "transcript.jsonl"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("open the transcript: %w", err)
	}
	line := struct {
		Time string `json:"time"`
		editor.SwarmEvent
	}{time.Now().UTC().Format(time.RFC3339Nano), ev}
	b, _ := json.Marshal(line)
	_, werr := f.Write(append(b, '\n'))
	serr := f.Sync()
	return errors.Join(werr, serr, f.Close())
}

// Transcript reads a swarm's transcript events, oldest first.
func Transcript(stateDir, id string) ([]editor.SwarmEvent, error) {
	s, err := openStore(Dir(stateDir), id)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(filepath.Join(s.dir, "transcript.jsonl"))
	if err != nil {
		return nil, fmt.Errorf("open the transcript: %w", err)
	}
	defer f.Close()
	var out []editor.SwarmEvent
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var ev editor.SwarmEvent
		if json.Unmarshal(sc.Bytes(), &ev) == nil { // a line cut by a crash is skipped
			out = append(out, ev)
		}
	}
	return out, sc.Err()
}

// List reads every swarm's state under stateDir, most recently updated
// first; a swarm recorded as running that no live process runs is listed
// as stopped (interrupted).
func List(stateDir string) ([]State, error) {
	entries, err := os.ReadDir(Dir(stateDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list swarms: %w", err)
	}
	var out []State
	for _, e := range entries {
		s, err := openStore(Dir(stateDir), e.Name())
		if err != nil {
			continue
		}
		if st, err := s.loadState(); err == nil {
			if st.Status == StatusRunning && !running(s.dir) {
				// Its process ended without recording it (killed).
				st.Status, st.Reason = StatusStopped, "interrupted: the process running it ended; resume it"
			}
			out = append(out, *st)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].UpdatedAt.After(out[j].UpdatedAt) })
	return out, nil
}

// writeJSON replaces path with v's JSON atomically (temporary file,
// fsync, rename): a crash leaves the old or the new file, never half.
func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", filepath.Base(path), err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("state folder: %w", err)
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	_, werr := f.Write(b)
	serr := f.Sync()
	if err := errors.Join(werr, serr, f.Close()); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// Ref is the swarm as a run of the run kernel (its kind, id and task).
func (st *State) Ref() kernel.Ref {
	return kernel.Ref{Kind: kernel.KindSwarm, ID: st.ID, Name: clip(st.Task, 60)}
}

// RunStatus is the swarm's status as the run kernel's: a swarm waiting on
// a human arbiter is running (its process waits).
func (st *State) RunStatus() kernel.Status {
	switch st.Status {
	case StatusDone:
		return kernel.Done
	case StatusFailed:
		return kernel.Failed
	case StatusStopped:
		return kernel.Stopped
	}
	return kernel.Running
}
