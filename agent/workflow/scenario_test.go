package workflow_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/agent/openai"
	"github.com/autarch-dev/autarch/agent/scripted"
	"github.com/autarch-dev/autarch/agent/workflow"
	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/agent/workflow/store/storetest"
	"github.com/autarch-dev/autarch/internal/testkit"
	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/workspace/git"
)

// scenarioConfig is a scenario's config.json.
type scenarioConfig struct {
	Task string `json:"task"`
	Name string `json:"name"`
	Path string `json:"path"`
	// Approvals answer approval requests in order: "approve",
	// "reject:feedback" or "dismiss".
	Approvals []string `json:"approvals"`
	// Answers answer ask_questions calls in order: the values of each
	// question, or nil to dismiss it.
	Answers [][][]string `json:"answers"`
	// StopOnEvent stops the workflow at an event, "kind:tool" (e.g.
	// "tool_result:write_file").
	StopOnEvent string `json:"stopOnEvent"`
	// MaxIterations caps model calls per turn (default 40).
	MaxIterations int `json:"maxIterations"`
	// PreflightTimeoutMS bounds preflight (default 20 minutes).
	PreflightTimeoutMS int `json:"preflightTimeoutMS"`
	// ResumeApprovals, when set, resumes the workflow after the first run
	// with these approvals (and the remaining script).
	Resume bool `json:"resume"`
	// Mode is the confirmation mode (default yolo).
	Mode string `json:"mode"`
	// ResearchFindings, when set, turns Research's fan-out on: these are
	// the explorer sub-agents' findings (the fan-out itself is tested in
	// swarm/orchestrate); their task must carry the approved scope card.
	ResearchFindings string `json:"researchFindings"`
	// Submodules are local repositories (name → files) added to the
	// repository as submodules before its first commit.
	Submodules map[string]map[string]string `json:"submodules"`
}

// scenarioWant is a scenario's want.json.
type scenarioWant struct {
	Stage   string   `json:"stage"`
	Status  string   `json:"status"`
	Error   string   `json:"error"`
	Commits []string `json:"commits"`
	Pulses  map[string]struct {
		Status     string `json:"status"`
		Rejections int    `json:"rejections"`
		Recovery   bool   `json:"recovery"`
		Unresolved int    `json:"unresolved"`
		// DiffContains must be in the pulse's stored diff artifact.
		DiffContains string `json:"diffContains"`
	} `json:"pulses"`
	// PreflightProgress must be in the preflight's progress message.
	PreflightProgress string            `json:"preflightProgress"`
	Baselines         int               `json:"baselines"`
	Approvals         []string          `json:"approvals"`
	Files             map[string]string `json:"files"`
	// KeptBranches are pulse ids whose branches remain.
	KeptBranches []string `json:"keptBranches"`
	Review       *struct {
		Recommendation string `json:"recommendation"`
		Comments       []struct {
			Type        string `json:"type"`
			File        string `json:"file"`
			Line        int    `json:"line"`
			Severity    string `json:"severity"`
			PreExisting bool   `json:"preExisting"`
		} `json:"comments"`
	} `json:"review"`
	WorktreeRemoved bool     `json:"worktreeRemoved"`
	BranchRemoved   bool     `json:"branchRemoved"`
	Reasons         []string `json:"reasons"`
	// FirstRun is how the first run of a resumed scenario ended: the
	// workflow's status and the pulses' (with their recovery checkpoints).
	FirstRun *struct {
		Status string `json:"status"`
		Pulses map[string]struct {
			Status   string `json:"status"`
			Recovery bool   `json:"recovery"`
		} `json:"pulses"`
	} `json:"firstRun"`
	// Nested are the reasons of the tool calls sub-agents made, which
	// must name a dispatch_subagent call (and only they may).
	Nested []string `json:"nested"`
}

func TestWorkflowScenarios(t *testing.T) {
	testkit.RunScenarios(t, "testdata/scenarios/*.txt", runScenario)
}

// harness is one scenario's world: a real git repo, the scripted model, a
// scripted editor, a store.
type harness struct {
	t      *testing.T
	dir    string
	repo   *git.Repo
	store  *store.Store
	ed     *testkit.Editor
	engine *workflow.Engine
	model  *scripted.Server
	recorder
}

func newHarness(t *testing.T, sc *testkit.Scenario, cfg scenarioConfig) *harness {
	t.Helper()
	h := &harness{t: t, dir: sc.NewRepo(t)}
	url, srv := sc.StartModel(t)
	addSubmodules(t, h.dir, cfg.Submodules)
	h.model = srv
	h.repo, h.store = storetest.Open(t, h.dir)
	var err error
	h.ed = &testkit.Editor{T: t, Approvals: cfg.Approvals, Answers: cfg.Answers, NoChat: true}
	h.engine, err = workflow.New(workflow.Config{Store: h.store, Repo: h.repo, Editor: h.ed,
		Model:    openai.New(openai.Config{BaseURL: url, APIKey: "test", MaxRetries: -1}),
		Settings: agent.Settings{Model: "scripted", ContextWindow: 128000}, Mode: cmp.Or(tools.Mode(cfg.Mode), tools.ModeYolo),
		StopPoll: 10 * time.Millisecond, MaxIterations: cfg.MaxIterations, ResearchFanOut: fanOutFindings(t, cfg.ResearchFindings), PreflightTimeout: time.Duration(cfg.PreflightTimeoutMS) * time.Millisecond,
		Log: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		Events: func(ev workflow.Event) {
			h.record(ev)
			if cfg.StopOnEvent != "" && string(ev.Kind)+":"+ev.Tool == cfg.StopOnEvent {
				h.engine.Stop(context.Background(), ev.WorkflowID, "stopped by the test")
			}
		}})
	must(t, err)
	return h
}

// fanOutFindings is a research fan-out answering findings (nil: off).
func fanOutFindings(t *testing.T, findings string) func(ctx context.Context, key, scope string) (string, error) {
	if findings == "" {
		return nil
	}
	return func(ctx context.Context, key, scope string) (string, error) {
		if key == "" || !strings.Contains(scope, "Approved scope card") {
			t.Errorf("the fan-out got key %q and task %q, want the workflow's id and its approved scope card", key, scope)
		}
		return findings, nil
	}
}

func runScenario(t *testing.T, sc *testkit.Scenario) {
	var cfg scenarioConfig
	var want scenarioWant
	sc.Decode(t, &cfg, &want)
	h := newHarness(t, sc, cfg)
	before := testkit.UserTreeHash(t, h.dir)
	ctx := context.Background()
	wf, err := h.engine.Start(ctx, workflow.Task{Text: cfg.Task, Name: cfg.Name, Path: workflow.Path(cfg.Path)})
	must(t, err)
	wf, err = h.engine.Run(ctx, wf.ID)
	if cfg.Resume {
		t.Logf("first run ended: %v", err)
		h.checkFirstRun(wf, want)
		wf, err = h.engine.Resume(ctx, wf.ID)
	}
	h.check(wf, err, want)
	if after := testkit.UserTreeHash(t, h.dir); after != before {
		t.Errorf("the user's HEAD, index or working tree changed:\nbefore %s\nafter  %s", before, after)
	}
	testkit.CheckModel(t, h.model)
}

func (h *harness) check(wf store.Workflow, runErr error, want scenarioWant) {
	t := h.t
	ctx := context.Background()
	switch {
	case want.Error == "" && runErr != nil:
		t.Errorf("run: %v", runErr)
	case want.Error != "" && (runErr == nil || !strings.Contains(runErr.Error(), want.Error)):
		t.Errorf("run error = %v, want it to contain %q", runErr, want.Error)
	}
	if wf.Stage != want.Stage || string(wf.Status) != want.Status {
		t.Errorf("workflow ended in stage %s, status %s (%s); want %s, %s", wf.Stage, wf.Status, wf.StatusReason, want.Stage, want.Status)
	}
	if want.Commits != nil {
		got := commitSubjects(t, h.dir, wf.BaseCommit, git.WorkflowBranch(wf.Name))
		if !slices.Equal(got, want.Commits) {
			t.Errorf("workflow branch commits = %q, want %q", got, want.Commits)
		}
	}
	pulses, err := h.store.WorkflowPulses(ctx, wf.ID)
	must(t, err)
	byID := map[string]store.Pulse{}
	for _, p := range pulses {
		byID[p.PlannedID] = p
	}
	for id, w := range want.Pulses {
		p, ok := byID[id]
		switch {
		case !ok:
			t.Errorf("pulse %s missing", id)
		case string(p.Status) != w.Status || p.RejectionCount != w.Rejections || p.IsRecoveryCheckpoint != w.Recovery || len(p.UnresolvedIssues) != w.Unresolved:
			t.Errorf("pulse %s: status %s, rejections %d, recovery %v, unresolved %d (%s); want %s, %d, %v, %d",
				id, p.Status, p.RejectionCount, p.IsRecoveryCheckpoint, len(p.UnresolvedIssues), p.FailureReason, w.Status, w.Rejections, w.Recovery, w.Unresolved)
		}
		if ok && p.Status != store.PulseProposed {
			h.checkKickoff(wf, p)
		}
		if ok && w.DiffContains != "" {
			a, err := h.store.Artifact(ctx, p.DiffArtifactID)
			if err != nil || a.Kind != store.ArtifactDiff || a.PulseID != p.ID || !strings.Contains(a.Content, w.DiffContains) {
				t.Errorf("pulse %s diff artifact %q = %+v, %v; want a diff containing %q", id, p.DiffArtifactID, a, err, w.DiffContains)
			}
		}
	}
	if want.PreflightProgress != "" {
		pre, err := h.store.LatestPreflight(ctx, wf.ID)
		if err != nil || !strings.Contains(pre.ProgressMessage, want.PreflightProgress) {
			t.Errorf("preflight progress = %q (%v), want it to contain %q", pre.ProgressMessage, err, want.PreflightProgress)
		}
	}
	bs, err := h.store.Baselines(ctx, wf.ID)
	must(t, err)
	if len(bs) != want.Baselines {
		t.Errorf("%d baselines, want %d", len(bs), want.Baselines)
	}
	if want.Approvals != nil && !slices.Equal(h.ed.Kinds(), want.Approvals) {
		t.Errorf("approvals asked = %q, want %q", h.ed.Kinds(), want.Approvals)
	}
	for file, sub := range want.Files {
		out := testkit.Git(t, h.dir, "show", git.WorkflowBranch(wf.Name)+":"+file)
		if !strings.Contains(out, sub) {
			t.Errorf("%s on the workflow branch does not contain %q:\n%s", file, sub, out)
		}
	}
	kept := testkit.Git(t, h.dir, "for-each-ref", "--format=%(refname:short)", "refs/heads/autarch-pulse/")
	var keptIDs []string
	for _, ref := range strings.Fields(kept) {
		keptIDs = append(keptIDs, ref[strings.LastIndex(ref, "/")+1:])
	}
	if !slices.Equal(keptIDs, want.KeptBranches) {
		t.Errorf("kept pulse branches = %q, want %q", keptIDs, want.KeptBranches)
	}
	if want.Review != nil {
		rc, err := h.store.LatestReview(ctx, wf.ID)
		must(t, err)
		if rc.Recommendation != want.Review.Recommendation {
			t.Errorf("review recommendation %q, want %q", rc.Recommendation, want.Review.Recommendation)
		}
		cs, err := h.store.Comments(ctx, rc.ID)
		must(t, err)
		// Comment tools run in parallel: compare in file and line order.
		slices.SortFunc(cs, func(a, b store.ReviewComment) int {
			return strings.Compare(fmt.Sprintf("%s %s %06d", a.Type, a.FilePath, a.StartLine), fmt.Sprintf("%s %s %06d", b.Type, b.FilePath, b.StartLine))
		})
		if len(cs) != len(want.Review.Comments) {
			t.Errorf("%d review comments, want %d: %+v", len(cs), len(want.Review.Comments), cs)
		}
		for i := range min(len(cs), len(want.Review.Comments)) {
			c, w := cs[i], want.Review.Comments[i]
			if string(c.Type) != w.Type || c.FilePath != w.File || c.StartLine != w.Line || c.Severity != w.Severity || c.PreExisting != w.PreExisting {
				t.Errorf("comment %d = %s %s:%d %s preExisting=%v; want %s %s:%d %s preExisting=%v", i, c.Type, c.FilePath, c.StartLine, c.Severity, c.PreExisting,
					w.Type, w.File, w.Line, w.Severity, w.PreExisting)
			}
		}
	}
	if _, err := os.Stat(h.repo.WorktreePath(wf.Name)); want.WorktreeRemoved != errors.Is(err, fs.ErrNotExist) {
		t.Errorf("worktree %s exists = %v, want removed = %v", h.repo.WorktreePath(wf.Name), err == nil, want.WorktreeRemoved)
	}
	branch := testkit.Git(t, h.dir, "for-each-ref", "--format=%(refname)", "refs/heads/"+git.WorkflowBranch(wf.Name))
	if (strings.TrimSpace(branch) == "") != want.BranchRemoved {
		t.Errorf("workflow branch present = %v, want removed = %v", branch != "", want.BranchRemoved)
	}
	var reasons []string
	called := map[string]bool{}
	h.mu.Lock()
	for _, ev := range h.events {
		switch ev.Kind {
		case "tool_call":
			reasons = append(reasons, ev.Reason)
			if ev.ToolCallID == "" {
				t.Errorf("tool_call %s without a ToolCallID", ev.Tool)
			}
			called[ev.ToolCallID] = true
		case "tool_result":
			if !called[ev.ToolCallID] {
				t.Errorf("tool_result %s names call %q, which no tool_call announced", ev.Tool, ev.ToolCallID)
			}
		case "stage": // a stage change names the stage left (From), for renderers that must not parse Text
			if strings.Contains(ev.Text, " → ") && ev.From == "" {
				t.Errorf("stage event %q without From", ev.Text)
			}
		case "pulse":
			if strings.Contains(ev.Text, "PulseCompleted") {
				t.Errorf("pulse event %s says the internal name: %q", ev.PulseID, ev.Text)
			}
		}
	}
	checkNesting(t, h.events, want.Nested)
	h.mu.Unlock()
	i := 0
	for _, r := range reasons {
		if i < len(want.Reasons) && r == want.Reasons[i] {
			i++
		}
	}
	if i < len(want.Reasons) {
		t.Errorf("tool call reason %q not seen in order; reasons: %q", want.Reasons[i], reasons)
	}
	calls, err := h.store.ToolCalls(ctx, wf.ID, "")
	must(t, err)
	if len(calls) == 0 && len(reasons) > 0 {
		t.Errorf("no tool calls recorded in the store")
	}
	h.checkStoredNesting(wf, calls, want.Nested)
}

// checkStoredNesting checks that the sub-agents' calls are stored as the
// children of their dispatch_subagent call (in the same stage and pulse,
// after it, with their arguments and outcome), that no other call has a
// parent, and that the workflow's detail shows them nested.
func (h *harness) checkStoredNesting(wf store.Workflow, calls []store.ToolCall, nested []string) {
	t, ctx := h.t, context.Background()
	pulses, err := h.store.WorkflowPulses(ctx, wf.ID)
	must(t, err)
	for _, p := range pulses {
		more, err := h.store.ToolCalls(ctx, wf.ID, p.ID)
		must(t, err)
		calls = append(calls, more...)
	}
	var got []string
	for i, c := range calls {
		if c.ParentCallID == "" {
			if slices.Contains(nested, c.Reason) {
				t.Errorf("the sub-agent's call %q was recorded as the agent's own (%s)", c.Reason, c.Name)
			}
			continue
		}
		got = append(got, c.Reason)
		parent := slices.IndexFunc(calls, func(p store.ToolCall) bool {
			return p.Name == "dispatch_subagent" && p.ParentCallID == "" && p.CallID == c.ParentCallID && p.PulseID == c.PulseID && p.Stage == c.Stage
		})
		if parent < 0 || parent > i || calls[parent].ID > c.ID {
			t.Errorf("stored sub-agent call %q names parent %q, which is no earlier dispatch_subagent call of its stage and pulse", c.Reason, c.ParentCallID)
		}
		if c.Subagent == "" || c.CallID == "" || c.EndedAt.IsZero() || c.ResultSummary == "" || !strings.Contains(string(c.Args), `"reason"`) {
			t.Errorf("stored sub-agent call %+v lacks its type, id, outcome or arguments", c)
		}
	}
	if strings.Join(got, "|") != strings.Join(nested, "|") {
		t.Errorf("stored sub-agent calls = %q, want %q", got, nested)
	}
	d, err := h.engine.Detail(ctx, wf.ID)
	must(t, err)
	var shown []string
	for _, a := range d.Activity {
		if a.ParentCallID != "" && a.Subagent != "" && a.CallID != "" {
			shown = append(shown, a.Reason)
		}
	}
	if strings.Join(shown, "|") != strings.Join(nested, "|") {
		t.Errorf("the detail's activity shows sub-agent calls %q, want %q", shown, nested)
	}
}

// checkFirstRun checks how the first run of a resumed scenario ended.
func (h *harness) checkFirstRun(wf store.Workflow, want scenarioWant) {
	t := h.t
	if want.FirstRun == nil {
		return
	}
	if string(wf.Status) != want.FirstRun.Status {
		t.Errorf("first run left the workflow %s (%s), want %s", wf.Status, wf.StatusReason, want.FirstRun.Status)
	}
	pulses, err := h.store.WorkflowPulses(context.Background(), wf.ID)
	must(t, err)
	for _, p := range pulses {
		w, ok := want.FirstRun.Pulses[p.PlannedID]
		if ok && (string(p.Status) != w.Status || p.IsRecoveryCheckpoint != w.Recovery) {
			t.Errorf("after the first run pulse %s is %s, recovery %v (%s); want %s, %v", p.PlannedID, p.Status, p.IsRecoveryCheckpoint, p.FailureReason, w.Status, w.Recovery)
		}
	}
}

// checkNesting checks the sub-agents' calls are nested under their
// dispatch_subagent call (testkit.CheckNesting).
func checkNesting(t *testing.T, events []workflow.Event, nested []string) {
	t.Helper()
	testkit.CheckNesting(t, events, func(ev workflow.Event) testkit.Call {
		return testkit.Call{Kind: string(ev.Kind), Tool: ev.Tool, ID: ev.ToolCallID, Parent: ev.ParentToolCallID, Subagent: ev.Subagent, Reason: ev.Reason}
	}, nested)
}

// checkKickoff checks that a pulse that ran names its initiating message:
// the first message of its conversation, which asked for the pulse.
func (h *harness) checkKickoff(wf store.Workflow, p store.Pulse) {
	msgs, err := h.store.Messages(context.Background(), wf.ID, "pulsing", p.ID)
	must(h.t, err)
	if len(msgs) == 0 || p.InitiatingMessageID != msgs[0].ID || !strings.Contains(msgs[0].Content, "Implement pulse "+p.PlannedID) {
		h.t.Errorf("pulse %s initiating message %d; its conversation starts with %+v", p.PlannedID, p.InitiatingMessageID, msgs[:min(1, len(msgs))])
	}
}

func commitSubjects(t *testing.T, dir, base, branch string) []string {
	out := strings.TrimSpace(testkit.Git(t, dir, "log", "--reverse", "--format=%s", base+".."+branch))
	if out == "" {
		return []string{}
	}
	return strings.Split(out, "\n")
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
