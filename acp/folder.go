package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"go.lsp.dev/protocol"

	"github.com/autarch-dev/autarch/agent/job"
	"github.com/autarch-dev/autarch/agent/workflow"
	"github.com/autarch-dev/autarch/app"
	"github.com/autarch-dev/autarch/editor"
)

// folder is one project directory: its application session (one engine
// and store per folder, whatever the number of ACP sessions over it) and the
// editor.Client the domain reaches the user through, which routes each
// event, approval and question to the ACP session it belongs to.
type folder struct {
	a   *Agent
	dir string
	app *app.Session
	mcp *MCPServers

	mu         sync.Mutex
	recovered  bool          // the jobs a killed process left running are Stopped
	discussing *session      // the session whose discussion turn runs
	turnBegan  chan struct{} // closed (and replaced) when a turn begins
}

var _ editor.Client = (*folder)(nil)

func newFolder(a *Agent, dir string, servers *MCPServers) *folder {
	f := &folder{a: a, dir: dir, mcp: servers, turnBegan: make(chan struct{})}
	f.app = a.cfg.Session(dir, servers, f, f.document)
	f.app.SetFolders([]string{dir})
	return f
}

// engine opens the folder's workflow engine.
func (f *folder) engine(ctx context.Context) (*workflow.Engine, error) {
	e, err := f.app.Engine(ctx)
	if err != nil {
		return nil, invalidParams("cannot open %s: %v", f.dir, err)
	}
	return e, nil
}

// jobs is the folder's job runner (its application session's), made on
// first use, when the jobs a killed process left running are marked
// Stopped.
func (f *folder) jobs(ctx context.Context) (*job.Runner, error) {
	if _, err := f.engine(ctx); err != nil {
		return nil, err
	}
	r, err := f.app.JobRunner(ctx)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	made := !f.recovered
	f.recovered = true
	f.mu.Unlock()
	if made { // outside f.mu: recovering emits events, which are routed
		if err := r.Recover(ctx); err != nil {
			f.a.log.Warn("interrupted jobs not recovered", "folder", f.dir, "err", err)
		}
	}
	return r, nil
}

// route is the session an event, approval or question belongs to: the one
// driving the workflow or job, else the one discussing, else one whose
// turn runs.
func (f *folder) route(ctx context.Context, workflowID, jobID string) *session {
	if workflowID == "" {
		workflowID = editor.WorkflowFrom(ctx)
	}
	var running *session
	for _, s := range f.a.sessionsOf(f) {
		rec := s.record()
		if workflowID != "" && rec.WorkflowID == workflowID || jobID != "" && rec.JobID == jobID {
			return s
		}
		if s.running() {
			running = s
		}
	}
	if workflowID != "" || jobID != "" {
		return nil // another process's or an unloaded session's work
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.discussing != nil {
		return f.discussing
	}
	return running
}

func (f *folder) setDiscussing(s *session) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.discussing = s
}

// jobEvent forwards a job's event to its session.
func (f *folder) jobEvent(ev editor.JobEvent) {
	if s := f.route(context.Background(), "", ev.JobID); s != nil {
		s.jobEvent(ev)
	}
}

// document reads a buffer the client has open (unsaved changes included)
// through fs/read_text_file, when the client offers it.
func (f *folder) document(path string) (string, bool) {
	if !f.a.capabilities().Fs.ReadTextFile {
		return "", false
	}
	var s *session
	for _, c := range f.a.sessionsOf(f) {
		s = c
		break
	}
	if s == nil {
		return "", false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	res, err := f.a.client().ReadTextFile(ctx, sdk.ReadTextFileRequest{SessionId: s.id(), Path: path})
	if err != nil {
		f.a.log.Debug("fs/read_text_file", "path", path, "err", err)
		return "", false
	}
	return res.Content, true
}

// ShowMessage tells the session whose turn runs, else logs.
func (f *folder) ShowMessage(ctx context.Context, typ editor.MessageType, message string) error {
	if s := f.route(ctx, "", ""); s != nil && s.running() {
		return s.say(ctx, message)
	}
	f.a.log.Info("message", "folder", f.dir, "text", message)
	return nil
}

// LogMessage logs: activity reaches clients as tool calls.
func (f *folder) LogMessage(ctx context.Context, typ editor.MessageType, message string) error {
	f.a.log.Debug("activity", "folder", f.dir, "text", message)
	return nil
}

// ShowMessageRequest offers the actions as permission options.
func (f *folder) ShowMessageRequest(ctx context.Context, typ editor.MessageType, message string, actions []string) (string, error) {
	s := f.route(ctx, "", "")
	if s == nil || len(actions) == 0 {
		return "", nil
	}
	return s.choose(ctx, message, actions)
}

// Approve asks the session's user through session/request_permission. A
// question of no session's (trusting the repository's configuration, asked
// as the folder opens) waits for the next turn in the folder: clients
// show permission requests within a turn.
func (f *folder) Approve(ctx context.Context, a editor.Approval) (editor.Verdict, error) {
	for {
		f.mu.Lock()
		began := f.turnBegan
		f.mu.Unlock()
		s := f.route(ctx, a.WorkflowID, a.JobID)
		switch {
		case s != nil:
			return s.approve(ctx, a)
		case a.WorkflowID != "" || a.JobID != "" || editor.WorkflowFrom(ctx) != "":
			return editor.Verdict{Decision: editor.DecisionDismissed}, nil
		}
		select {
		case <-began:
		case <-ctx.Done():
			return editor.Verdict{Decision: editor.DecisionDismissed}, nil
		}
	}
}

// began tells waiting questions that a turn began in the folder.
func (f *folder) began() {
	f.mu.Lock()
	defer f.mu.Unlock()
	close(f.turnBegan)
	f.turnBegan = make(chan struct{})
}

// Ask asks a single-choice question as permission options; any other
// question is left pending and reaches the user as a message that the
// next prompt answers.
func (f *folder) Ask(ctx context.Context, qs []editor.Question) ([]editor.Answer, error) {
	s := f.route(ctx, "", "")
	if s == nil {
		return dismissedAll(len(qs)), nil
	}
	return s.ask(ctx, qs)
}

// StartProgress shows nothing: the plan and tool calls report progress.
func (f *folder) StartProgress(ctx context.Context, title string, cancellable bool) (editor.Progress, error) {
	return noProgress{done: make(chan struct{})}, nil
}

// ApplyEdit refuses: a workflow never writes into the user's tree
// uninvited.
func (f *folder) ApplyEdit(ctx context.Context, label string, edit protocol.WorkspaceEdit) (bool, error) {
	return false, nil
}

// PublishDiagnostics drops diagnostics: review comments arrive as messages.
func (f *folder) PublishDiagnostics(ctx context.Context, params protocol.PublishDiagnosticsParams) error {
	return nil
}

// ShowDocument is not available over ACP.
func (f *folder) ShowDocument(ctx context.Context, params protocol.ShowDocumentParams) (bool, error) {
	return false, nil
}

// Notify sends nothing: events reach the sessions through the application
// session's stream (Events).
func (f *folder) Notify(ctx context.Context, method string, params any) error { return nil }

// Call answers that ACP clients have no autarch/* methods.
func (f *folder) Call(ctx context.Context, method string, params, result any) error {
	return fmt.Errorf("%s is not available over ACP", method)
}

type noProgress struct{ done chan struct{} }

func (noProgress) Report(context.Context, string, int) error { return nil }
func (noProgress) End(context.Context, string) error         { return nil }
func (p noProgress) Cancelled() <-chan struct{}              { return p.done }

func dismissedAll(n int) []editor.Answer {
	out := make([]editor.Answer, n)
	for i := range out {
		out[i] = editor.Answer{Dismissed: true}
	}
	return out
}

// record is what is kept of a session so that session/load finds it after
// a restart: the mode, the workflow or job it drives, and the discussion
// (which the store does not keep).
type record struct {
	ID         string    `json:"id"`
	Cwd        string    `json:"cwd"`
	Mode       Mode      `json:"mode"`
	WorkflowID string    `json:"workflowId,omitempty"`
	JobID      string    `json:"jobId,omitempty"`
	Created    time.Time `json:"created"`
	// Title is the session's first prompt (shortened).
	Title      string     `json:"title,omitempty"`
	Discussion []chatLine `json:"discussion,omitempty"`
	// Prompts are what the user wrote to a workflow or a job, in order:
	// session/load replays a stored user-role message as the user's only
	// when it is one of them (the engine writes the others).
	Prompts []string `json:"prompts,omitempty"`
}

// chatLine is one message of a discussion.
type chatLine struct {
	Role string `json:"role"`
	Text string `json:"text"`
}

// sessionIDPattern is the shape of the ids session/new makes; anything
// else is refused before it names a file.
var sessionIDPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^acp-[0-9a-f]{1,64}$`) })

// recordDir is where the folder's sessions are recorded: beside the
// workflow store, outside the user's tree.
func (f *folder) recordDir(ctx context.Context) (string, error) {
	e, err := f.engine(ctx)
	if err != nil {
		return "", err
	}
	return filepath.Join(e.Config().Repo.StateDir(), "acp"), nil
}

// save writes a record whole (a temporary file renamed over it).
func (f *folder) save(ctx context.Context, rec record) error {
	dir, err := f.recordDir(ctx)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, rec.ID+".*.tmp")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(b)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(dir, rec.ID+".json"))
}

// list is the folder's recorded sessions; a damaged record is skipped.
func (f *folder) list(ctx context.Context) ([]sdk.SessionInfo, error) {
	dir, err := f.recordDir(ctx)
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []sdk.SessionInfo
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || !sessionIDPattern().MatchString(id) {
			continue
		}
		rec, err := f.load(ctx, id)
		info, ierr := e.Info()
		if err != nil || ierr != nil {
			f.a.log.Debug("session record skipped", "file", e.Name(), "err", errors.Join(err, ierr))
			continue
		}
		title := fmt.Sprintf("%s: %s", rec.Mode, orDash(rec.Title))
		out = append(out, sdk.SessionInfo{SessionId: sdk.SessionId(rec.ID), Cwd: rec.Cwd, Title: &title,
			UpdatedAt: sdk.Ptr(info.ModTime().UTC().Format(time.RFC3339))})
	}
	return out, nil
}

// load reads a recorded session of the folder.
func (f *folder) load(ctx context.Context, id string) (record, error) {
	if !sessionIDPattern().MatchString(id) {
		return record{}, invalidParams("unknown session %q: Autarch's session ids look like acp-<hex> (from session/new)", id)
	}
	dir, err := f.recordDir(ctx)
	if err != nil {
		return record{}, err
	}
	b, err := os.ReadFile(filepath.Join(dir, id+".json"))
	if errors.Is(err, os.ErrNotExist) {
		return record{}, invalidParams("unknown session %q: no session with that id was recorded in %s (start one with session/new)", id, f.dir)
	}
	if err != nil {
		return record{}, err
	}
	var rec record
	if err := json.Unmarshal(b, &rec); err != nil || rec.ID != id {
		return record{}, fmt.Errorf("the record of session %s is damaged (%s): start a new session", id, filepath.Join(dir, id+".json"))
	}
	return rec, nil
}
