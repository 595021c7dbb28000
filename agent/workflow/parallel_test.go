package workflow_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/tools/txtar"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/agent/openai"
	"github.com/autarch-dev/autarch/agent/scripted"
	"github.com/autarch-dev/autarch/agent/workflow"
	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/agent/workflow/store/storetest"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/internal/testkit"
	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/workspace/git"
)

// pulseRouter is the scripted model of a parallel workflow: one script per
// pulse (the pulse is named by its conversation's first user message,
// "Implement pulse <id>:"), one for every other stage. It logs each request
// (pulse, step) in arrival order, and a barrier holds the first request of
// each pulse in a group until every pulse of the group has sent its first:
// a group that does not run concurrently times out there.
type pulseRouter struct {
	t      *testing.T
	main   *scripted.Server
	pulses map[string]*scripted.Server

	// gate holds a pulse's n-th request ("pulse-2#2") until its channel
	// closes; on closes a channel when that request arrives.
	gate, on map[string]chan struct{}

	mu      sync.Mutex
	log     []string // pulse ids, one per request
	arrived map[string]chan struct{}
	barrier []string
}

var pulseKickoff = regexp.MustCompile(`Implement pulse ([A-Za-z0-9._-]+):`)

func newPulseRouter(t *testing.T, main string, pulses map[string]string, barrier ...string) (*pulseRouter, string) {
	t.Helper()
	parse := func(steps string) *scripted.Server {
		ar := txtar.Parse([]byte(steps))
		s, err := scripted.Parse(txtar.Format(ar))
		must(t, err)
		return scripted.NewServer(s)
	}
	r := &pulseRouter{t: t, main: parse(main), pulses: map[string]*scripted.Server{}, arrived: map[string]chan struct{}{}, barrier: barrier,
		gate: map[string]chan struct{}{}, on: map[string]chan struct{}{}}
	for id, steps := range pulses {
		r.pulses[id] = parse(steps)
	}
	for _, id := range barrier {
		r.arrived[id] = make(chan struct{})
	}
	hs := httptest.NewServer(r)
	t.Cleanup(hs.Close)
	return r, hs.URL + "/v1"
}

func (r *pulseRouter) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	req.Body = io.NopCloser(bytes.NewReader(body))
	var chat scripted.ChatRequest
	_ = json.Unmarshal(body, &chat)
	id := ""
	for _, m := range chat.Messages {
		if m.Role == "user" {
			if sub := pulseKickoff.FindStringSubmatch(scripted.MessageText(m.Content)); sub != nil {
				id = sub[1]
			}
			break
		}
	}
	srv := r.main
	if id != "" && r.pulses[id] != nil {
		srv = r.pulses[id]
		r.mu.Lock()
		r.log = append(r.log, id)
		key := fmt.Sprintf("%s#%d", id, strings.Count(strings.Join(r.log, " ")+" ", id+" "))
		if ch := r.on[key]; ch != nil {
			delete(r.on, key)
			close(ch)
		}
		hold := r.gate[key]
		ch, gated := r.arrived[id]
		if gated {
			delete(r.arrived, id)
			close(ch)
		}
		r.mu.Unlock()
		if gated {
			r.wait()
		}
		if hold != nil {
			select {
			case <-hold:
			case <-time.After(30 * time.Second):
				r.t.Errorf("request %s waited 30 s at its gate", key)
			}
		}
	}
	srv.ServeHTTP(w, req)
}

// wait holds a request until every pulse of the barrier has arrived (or 30 s).
func (r *pulseRouter) wait() {
	deadline := time.After(30 * time.Second)
	for _, id := range r.barrier {
		r.mu.Lock()
		ch := r.arrived[id]
		r.mu.Unlock()
		if ch == nil {
			continue
		}
		select {
		case <-ch:
		case <-deadline:
			return
		}
	}
}

func (r *pulseRouter) requests() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.log)
}

func (r *pulseRouter) check() {
	t := r.t
	all := map[string]*scripted.Server{"main": r.main}
	for id, s := range r.pulses {
		all[id] = s
	}
	for id, s := range all {
		for _, e := range s.Errors() {
			t.Errorf("scripted model %s: %s", id, e)
		}
		if n := s.Remaining(); n > 0 {
			t.Errorf("scripted model %s: %d step(s) never requested", id, n)
		}
	}
}

// parallelMain is the non-pulse part of the script: scope, research, a plan
// of the given pulses, preflight and review.
func parallelMain(pulses string) string {
	return `-- 01-scope.json --
{"tool_calls": [{"name": "submit_scope", "args": {"reason": "Clear", "title": "Parts", "description": "Add the parts.", "in_scope": ["parts"], "out_of_scope": [], "constraints": [], "recommended_path": "full", "rationale": "several steps"}}]}
-- 02-research.json --
{"tool_calls": [{"name": "submit_research", "args": {"reason": "Tiny", "summary": "One package.", "keyFiles": [{"path": "a.go", "purpose": "the package", "lineRanges": "1-3"}], "recommendations": ["add the parts"]}}]}
-- 03-plan.json --
{"tool_calls": [{"name": "submit_plan", "args": {"reason": "Steps", "approachSummary": "Parts in a DAG.", "pulses": ` + pulses + `}}]}
-- 04-preflight.json --
{"tool_calls": [{"name": "complete_preflight", "args": {"reason": "Ready", "summary": "Nothing to install.", "setupCommands": [], "buildSuccess": true, "baselinesRecorded": 0}}]}
-- 05-review.json --
{"tool_calls": [{"name": "complete_review", "args": {"reason": "Done", "recommendation": "approve", "summary": "Fine."}}]}
`
}

// pulseSteps writes files then completes with summary.
func pulseSteps(summary string, files map[string]string) string {
	var calls []string
	for _, f := range slices.Sorted(mapsKeys(files)) {
		b, _ := json.Marshal(map[string]any{"name": "write_file", "args": map[string]string{"path": f, "content": files[f], "reason": "Write " + f}})
		calls = append(calls, string(b))
	}
	done, _ := json.Marshal(map[string]any{"name": "complete_pulse", "args": map[string]any{"reason": "Done", "summary": summary, "filesChanged": slices.Sorted(mapsKeys(files))}})
	return fmt.Sprintf("-- 01-write.json --\n{\"tool_calls\": [%s]}\n-- 02-done.json --\n{\"tool_calls\": [%s]}\n", strings.Join(calls, ","), done)
}

func mapsKeys(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

type parallelWorld struct {
	dir    string
	store  *store.Store
	engine *workflow.Engine
	recorder
}

func newParallelWorld(t *testing.T, url string, files map[string]string, opts ...func(*workflow.Config)) *parallelWorld {
	t.Helper()
	return openParallelWorld(t, url, testkit.NewRepo(t, files), opts...)
}

// openParallelWorld opens an engine on the repository in dir.
func openParallelWorld(t *testing.T, url, dir string, opts ...func(*workflow.Config)) *parallelWorld {
	t.Helper()
	w := &parallelWorld{dir: dir}
	repo, st := storetest.Open(t, dir)
	w.store = st
	cfg := workflow.Config{Store: w.store, Repo: repo, Editor: &testkit.Editor{T: t, Approvals: []string{"approve", "approve", "approve"}, NoChat: true},
		Model:    openai.New(openai.Config{BaseURL: url, APIKey: "test", MaxRetries: -1}),
		Settings: agent.Settings{Model: "scripted", ContextWindow: 128000}, Mode: tools.ModeYolo, StopPoll: 10 * time.Millisecond,
		Quality: &tools.Quality{}, PulseLease: 3 * time.Second,
		Log:    slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		Events: w.record}
	for _, o := range opts {
		o(&cfg)
	}
	var err error
	w.engine, err = workflow.New(cfg)
	must(t, err)
	return w
}

func (w *parallelWorld) eventTexts(status string) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for _, ev := range w.events {
		if ev.Kind == "pulse" && ev.Status == status {
			out = append(out, ev.PulseID+": "+ev.Text)
		}
	}
	return out
}

const diamondPlan = `[{"id": "pulse-1", "title": "A", "description": "a.go", "expectedChanges": ["a.go"], "estimatedSize": "small"},
 {"id": "pulse-2", "title": "B", "description": "b.go", "expectedChanges": ["b.go"], "estimatedSize": "small", "dependsOn": ["pulse-1"]},
 {"id": "pulse-3", "title": "C", "description": "c.go", "expectedChanges": ["c.go"], "estimatedSize": "small", "dependsOn": ["pulse-1"]},
 {"id": "pulse-4", "title": "D", "description": "d.go", "expectedChanges": ["d.go"], "estimatedSize": "small", "dependsOn": ["pulse-2", "pulse-3"]}]`

var goRepo = map[string]string{"go.mod": "module example.com/parts\n\ngo 1.22\n", "a.go": "package parts\n\n// A is the first part.\nfunc A() int { return 0 }\n"}

// TestParallelDiamond: pulses 2 and 3 depend on 1, 4 on both; with
// parallel 2, pulses 2 and 3 run at once (the barrier holds each one's
// first request until the other's arrived), and the workflow branch ends
// with four commits in plan order, each building.
func TestParallelDiamond(t *testing.T) {
	router, url := newPulseRouter(t, parallelMain(diamondPlan), diamondSteps(), "pulse-2", "pulse-3")
	w := newParallelWorld(t, url, goRepo)
	before := testkit.UserTreeHash(t, w.dir)
	wf := w.complete(t, workflow.Task{Text: "add the parts", Name: "parts", Parallel: 2})
	router.check()
	log := router.requests()
	first := func(id string) int { return slices.Index(log, id) }
	last := func(id string) int {
		n := -1
		for i, x := range log {
			if x == id {
				n = i
			}
		}
		return n
	}
	if !(first("pulse-2") < last("pulse-3") && first("pulse-3") < last("pulse-2")) {
		t.Errorf("pulses 2 and 3 did not run concurrently: requests %q", log)
	}
	if last("pulse-1") > min(first("pulse-2"), first("pulse-3")) || first("pulse-4") < max(last("pulse-2"), last("pulse-3")) {
		t.Errorf("a pulse started before its dependencies finished: requests %q", log)
	}
	w.checkCommits(t, wf, []string{"feat(parts): add A1", "feat(parts): add B", "feat(parts): add C", "feat(parts): add D"})
	checkEachBuilds(t, w.dir, wf.BaseCommit, git.WorkflowBranch(wf.Name))
	if after := testkit.UserTreeHash(t, w.dir); after != before {
		t.Errorf("the user's tree changed")
	}
	if wts := strings.TrimSpace(testkit.Git(t, w.dir, "worktree", "list")); strings.Count(wts, "\n") != 0 {
		t.Errorf("git worktree list is not clean at the end:\n%s", wts)
	}
	if refs := strings.TrimSpace(testkit.Git(t, w.dir, "for-each-ref", "refs/heads/autarch-pulse/")); refs != "" {
		t.Errorf("pulse branches left: %s", refs)
	}
	lanes := w.eventTexts("Lane")
	if len(lanes) != 4 {
		t.Errorf("lane events %q, want one per pulse", lanes)
	}
}

// checkEachBuilds builds every commit of base..branch in a scratch worktree.
func checkEachBuilds(t *testing.T, dir, base, branch string) {
	t.Helper()
	scratch := filepath.Join(t.TempDir(), "build")
	for _, c := range strings.Fields(testkit.Git(t, dir, "rev-list", "--reverse", base+".."+branch)) {
		testkit.Git(t, dir, "worktree", "add", "-q", "--detach", scratch, c)
		cmd := exec.Command("go", "build", "./...")
		cmd.Dir = scratch
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("commit %.8s does not build: %v\n%s", c, err, out)
		}
		testkit.Git(t, dir, "worktree", "remove", "--force", scratch)
	}
}

// rerunSteps are a pulse's steps after its first run conflicted: the agent
// is told why and which file, writes the file again and completes.
func rerunSteps(summary, file, content string) string {
	write, _ := json.Marshal(map[string]any{"name": "write_file", "args": map[string]string{"path": file, "content": content, "reason": "Write " + file + " again"}})
	done, _ := json.Marshal(map[string]any{"name": "complete_pulse", "args": map[string]any{"reason": "Done again", "summary": summary, "filesChanged": []string{file}}})
	return fmt.Sprintf("-- 03-rewrite.json --\n{\"expect\": {\"lastUserContains\": \"was not landed\", \"messagesContain\": [%q]}, \"tool_calls\": [%s]}\n-- 04-done.json --\n{\"tool_calls\": [%s]}\n", file, write, done)
}

const triPlan = `[{"id": "pulse-1", "title": "A", "description": "a.go", "expectedChanges": ["a.go"], "estimatedSize": "small"},
 {"id": "pulse-2", "title": "B", "description": "n.go", "expectedChanges": ["n.go"], "estimatedSize": "small", "dependsOn": ["pulse-1"]},
 {"id": "pulse-3", "title": "C", "description": "n.go", "expectedChanges": ["n.go"], "estimatedSize": "small", "dependsOn": ["pulse-1"]}]`

func numbers(body string) string {
	return "package parts\n\n// N is a number.\nfunc N() int { return " + body + " }\n"
}

// TestParallelConflictRerun: pulses 2 and 3 change the same line at once;
// 2 lands, 3 is re-run on the new head (told why, the file named) and lands.
func TestParallelConflictRerun(t *testing.T) {
	files := map[string]string{"n.go": numbers("0")}
	for k, v := range goRepo {
		files[k] = v
	}
	router, url := newPulseRouter(t, parallelMain(triPlan), map[string]string{
		"pulse-1": pulseSteps("feat(parts): add A1", map[string]string{"a.go": "package parts\n\n// A is the first part.\nfunc A() int { return 1 }\n"}),
		"pulse-2": pulseSteps("feat(parts): N is two", map[string]string{"n.go": numbers("2")}),
		"pulse-3": pulseSteps("feat(parts): N is three", map[string]string{"n.go": numbers("3")}) + rerunSteps("feat(parts): N is two plus three", "n.go", numbers("2 + 3")),
	}, "pulse-2", "pulse-3")
	w := newParallelWorld(t, url, files)
	wf := w.complete(t, workflow.Task{Text: "numbers", Name: "numbers", Parallel: 2})
	router.check()
	w.checkCommits(t, wf, []string{"feat(parts): add A1", "feat(parts): N is two", "feat(parts): N is two plus three"})
	if c := w.eventTexts("Conflict"); len(c) != 1 || !strings.Contains(c[0], "pulse-3: re-run on the new head: pulse pulse-3 conflicts with the workflow head in n.go") {
		t.Errorf("conflict events %q", c)
	}
	if wts := strings.TrimSpace(testkit.Git(t, w.dir, "worktree", "list")); strings.Count(wts, "\n") != 0 {
		t.Errorf("git worktree list is not clean at the end:\n%s", wts)
	}
}

const quadPlan = `[{"id": "pulse-1", "title": "A", "description": "a.go", "expectedChanges": ["a.go"], "estimatedSize": "small"},
 {"id": "pulse-2", "title": "B", "description": "n.go", "expectedChanges": ["n.go"], "estimatedSize": "small", "dependsOn": ["pulse-1"]},
 {"id": "pulse-3", "title": "C", "description": "m.go", "expectedChanges": ["n.go"], "estimatedSize": "small", "dependsOn": ["pulse-1"]},
 {"id": "pulse-4", "title": "D", "description": "n.go", "expectedChanges": ["n.go"], "estimatedSize": "small", "dependsOn": ["pulse-1"]}]`

// TestParallelSecondConflictHalts: pulse 4 finishes first and conflicts
// with pulse 2 when it lands (re-run), then with pulse 3, which lands while
// the re-run works: the workflow halts with both sides shown.
func TestParallelSecondConflictHalts(t *testing.T) {
	np := func(n, p string) string {
		return numbers(n) + "\n// S keeps N and P apart.\nfunc S() {}\n\n// T keeps N and P apart.\nfunc T() {}\n\n// P is a number.\nfunc P() int { return " + p + " }\n"
	}
	files := map[string]string{"n.go": np("0", "0")}
	for k, v := range goRepo {
		files[k] = v
	}
	router, url := newPulseRouter(t, parallelMain(quadPlan)[:strings.Index(parallelMain(quadPlan), "-- 05-review")], map[string]string{
		"pulse-1": pulseSteps("feat(parts): add A1", map[string]string{"a.go": "package parts\n\n// A is the first part.\nfunc A() int { return 1 }\n"}),
		"pulse-2": pulseSteps("feat(parts): N is two", map[string]string{"n.go": np("2", "0")}),
		"pulse-3": pulseSteps("feat(parts): P is three", map[string]string{"n.go": np("0", "3")}),
		"pulse-4": pulseSteps("feat(parts): N is four", map[string]string{"n.go": np("4", "0")}) + rerunSteps("feat(parts): N and P are four", "n.go", np("2 + 4", "4")),
	}, "pulse-2", "pulse-3", "pulse-4")
	waiting := make(chan struct{})
	router.gate["pulse-2#2"] = waiting // 2 completes after 4 waits to land
	router.gate["pulse-3#2"] = make(chan struct{})
	router.on["pulse-4#3"] = router.gate["pulse-3#2"] // 3 completes once 4's re-run began
	w := newParallelWorld(t, url, files)
	var once sync.Once
	var view editor.WorkflowDetail
	w.onEvent = func(ev workflow.Event) {
		if ev.Kind == "pulse" && ev.PulseID == "pulse-4" && ev.Status == "WaitingToLand" {
			once.Do(func() {
				var err error
				view, err = w.engine.Detail(context.Background(), "numbers")
				must(t, err)
				close(waiting)
			})
		}
	}
	ctx := context.Background()
	wf, err := w.engine.Start(ctx, workflow.Task{Text: "numbers", Name: "numbers", Parallel: 3})
	must(t, err)
	wf, err = w.engine.Run(ctx, wf.ID)
	var h *workflow.Halt
	if !errors.As(err, &h) || wf.Status != store.WorkflowHalted || h.Pulse != "pulse-4" {
		t.Fatalf("run: %v, workflow %s (%s); want a halt at pulse-4", err, wf.Status, wf.StatusReason)
	}
	router.check()
	// The side panel, when pulse 4 had finished first: three lanes, pulse
	// 4 in one, waiting on 2 and 3 to land before it.
	lanes := map[string]string{}
	for _, p := range view.Pulses {
		lanes[p.ID] = fmt.Sprintf("%s lane=%v merge=%d waiting=%v", p.Status, p.Lane > 0, p.MergeOrder, p.WaitingOn)
	}
	wantLanes := map[string]string{"pulse-1": "Succeeded lane=false merge=1 waiting=[]", "pulse-2": "Running lane=true merge=2 waiting=[]",
		"pulse-3": "Running lane=true merge=3 waiting=[]", "pulse-4": "Running lane=true merge=4 waiting=[pulse-2 pulse-3]"}
	if view.Parallel != 3 || !maps.Equal(lanes, wantLanes) {
		t.Errorf("workflow view while pulse 4 waited: parallel %d, pulses %v; want 3, %v", view.Parallel, lanes, wantLanes)
	}
	for _, sub := range []string{"a second time", "=== n.go — on the workflow head:", "+func P() int { return 3 }", "=== n.go — in pulse pulse-4:", "+func P() int { return 4 }", "autarch-pulse/numbers/pulse-4"} {
		if !strings.Contains(wf.StatusReason, sub) {
			t.Errorf("halt reason does not show %q:\n%s", sub, wf.StatusReason)
		}
	}
	w.checkCommits(t, wf, []string{"feat(parts): add A1", "feat(parts): N is two", "feat(parts): P is three"})
	if kept := strings.TrimSpace(testkit.Git(t, w.dir, "for-each-ref", "--format=%(refname:short)", "refs/heads/autarch-pulse/")); kept != "autarch-pulse/numbers/pulse-4" {
		t.Errorf("kept pulse branches %q, want pulse-4's", kept)
	}
}

// crashDirEnv tells TestParallelCrashChild, run as a child process, where
// the repository of TestParallelKillResume is.
const crashDirEnv = "AUTARCH_TEST_PARALLEL_CRASH_DIR"

// crashPulse writes its file, then hangs on its next model request until
// the process is killed.
func crashPulse(file, content string) string {
	write, _ := json.Marshal(map[string]any{"name": "write_file", "args": map[string]string{"path": file, "content": content, "reason": "Write " + file}})
	return fmt.Sprintf("-- 01-write.json --\n{\"tool_calls\": [%s]}\n-- 02-never.json --\n{\"text\": \"never answered\"}\n", write)
}

var (
	bGo = "package parts\n\n// B uses A.\nfunc B() int { return A() + 1 }\n"
	cGo = "package parts\n\n// C uses A.\nfunc C() int { return A() + 2 }\n"
)

// TestParallelCrashChild is TestParallelKillResume's process to kill: it
// runs the diamond with parallel 2 until pulses 2 and 3 have written their
// files and wait on the model.
func TestParallelCrashChild(t *testing.T) {
	dir := os.Getenv(crashDirEnv)
	if dir == "" {
		t.Skip("run by TestParallelKillResume")
	}
	main := parallelMain(diamondPlan)
	router, url := newPulseRouter(t, main[:strings.Index(main, "-- 05-review")], map[string]string{
		"pulse-1": pulseSteps("feat(parts): add A1", map[string]string{"a.go": "package parts\n\n// A is the first part.\nfunc A() int { return 1 }\n"}),
		"pulse-2": crashPulse("b.go", bGo),
		"pulse-3": crashPulse("c.go", cGo),
	})
	router.gate["pulse-2#2"], router.gate["pulse-3#2"] = make(chan struct{}), make(chan struct{})
	w := openParallelWorld(t, url, dir)
	ctx := context.Background()
	wf, err := w.engine.Start(ctx, workflow.Task{Text: "add the parts", Name: "parts", Parallel: 2})
	must(t, err)
	_, err = w.engine.Run(ctx, wf.ID)
	t.Fatalf("the run ended before it was killed: %v", err)
}

// TestParallelKillResume: kill -9 the process while pulses 2 and 3 run;
// resume recovers their work from the recovery checkpoints, takes each
// pulse only once its dead holder's lease ended, and finishes with every
// commit.
func TestParallelKillResume(t *testing.T) {
	router, url := newPulseRouter(t, "-- 05-review.json --\n{\"tool_calls\": [{\"name\": \"complete_review\", \"args\": {\"reason\": \"Done\", \"recommendation\": \"approve\", \"summary\": \"Fine.\"}}]}\n", map[string]string{
		"pulse-2": resumeSteps("feat(parts): add B", "b.go"),
		"pulse-3": resumeSteps("feat(parts): add C", "c.go"),
		"pulse-4": pulseSteps("feat(parts): add D", map[string]string{"d.go": "package parts\n\n// D uses B and C.\nfunc D() int { return B() + C() }\n"}),
	})
	w := newParallelWorld(t, url, goRepo)
	before := testkit.UserTreeHash(t, w.dir)
	child := exec.Command(os.Args[0], "-test.run", "^TestParallelCrashChild$", "-test.count=1")
	child.Env = append(os.Environ(), crashDirEnv+"="+w.dir)
	child.Stderr = os.Stderr
	must(t, child.Start())
	repo, err := git.Open(context.Background(), w.dir, git.Config{})
	must(t, err)
	testkit.CheckForChild(t, child, nil, 60*time.Second, 20*time.Millisecond, func() error {
		if !fileExists(filepath.Join(repo.PulseTreePath("parts", "pulse-2"), "b.go")) || !fileExists(filepath.Join(repo.PulseTreePath("parts", "pulse-3"), "c.go")) {
			return errors.New("the child never had pulses 2 and 3 running")
		}
		return nil
	})
	killed := time.Now()
	must(t, child.Process.Signal(syscall.SIGKILL))
	_ = child.Wait()
	ctx := context.Background()
	must(t, w.engine.Recover(ctx))
	wf, err := w.engine.Resume(ctx, "parts")
	if err != nil || wf.Status != store.WorkflowCompleted {
		t.Fatalf("resume: %v, workflow %s (%s)", err, wf.Status, wf.StatusReason)
	}
	router.check()
	w.checkCommits(t, wf, []string{"feat(parts): add A1", "feat(parts): add B", "feat(parts): add C", "feat(parts): add D"})
	for file, content := range map[string]string{"b.go": bGo, "c.go": cGo} {
		if got := testkit.Git(t, w.dir, "show", git.WorkflowBranch(wf.Name)+":"+file); got != content {
			t.Errorf("%s written by the killed run was lost: %q", file, got)
		}
	}
	// The killed process's leases were waited out, not broken.
	pulses, err := w.store.WorkflowPulses(ctx, wf.ID)
	must(t, err)
	for _, p := range pulses {
		if (p.PlannedID == "pulse-2" || p.PlannedID == "pulse-3") && p.StartedAt.Before(killed.Add(2*time.Second)) {
			t.Errorf("pulse %s started again at %s, before the dead run's lease (3 s, extended every 1 s) could end after the kill at %s", p.PlannedID, p.StartedAt, killed)
		}
	}
	if len(w.eventTexts("Leased")) == 0 {
		t.Errorf("resume did not report waiting for the killed run's leases")
	}
	checkEachBuilds(t, w.dir, wf.BaseCommit, git.WorkflowBranch(wf.Name))
	if after := testkit.UserTreeHash(t, w.dir); after != before {
		t.Errorf("the user's tree changed")
	}
	if wts := strings.TrimSpace(testkit.Git(t, w.dir, "worktree", "list")); strings.Count(wts, "\n") != 0 {
		t.Errorf("git worktree list is not clean at the end:\n%s", wts)
	}
}

// resumeSteps complete a pulse resumed from its recovery checkpoint (its
// file is already in the worktree).
func resumeSteps(summary, file string) string {
	done, _ := json.Marshal(map[string]any{"name": "complete_pulse", "args": map[string]any{"reason": "Done", "summary": summary, "filesChanged": []string{file}}})
	return fmt.Sprintf("-- 01-done.json --\n{\"expect\": {\"lastUserContains\": \"interrupted earlier\"}, \"tool_calls\": [%s]}\n", done)
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// TestParallelWallTime measures the pulsing stage of a 6-pulse plan made
// of 3 independent chains of 2, with a scripted model that takes a fixed
// time per step, at parallel 1, 2 and 3, for two plan orders (chains one
// after another; chains interleaved). Set AUTARCH_BENCH_PARALLEL=1 to run.
func TestParallelWallTime(t *testing.T) {
	if os.Getenv("AUTARCH_BENCH_PARALLEL") == "" {
		t.Skip("a benchmark: set AUTARCH_BENCH_PARALLEL=1")
	}
	const stepMS = 500
	pulse := func(id, dep string) string {
		d := ""
		if dep != "" {
			d = `, "dependsOn": ["` + dep + `"]`
		}
		return `{"id": "` + id + `", "title": "` + id + `", "description": "` + id + `.go", "expectedChanges": ["` + id + `.go"], "estimatedSize": "small"` + d + `}`
	}
	orders := map[string][]string{
		"chains in turn":     {pulse("a1", ""), pulse("a2", "a1"), pulse("b1", ""), pulse("b2", "b1"), pulse("c1", ""), pulse("c2", "c1")},
		"chains interleaved": {pulse("a1", ""), pulse("b1", ""), pulse("c1", ""), pulse("a2", "a1"), pulse("b2", "b1"), pulse("c2", "c1")},
	}
	var table strings.Builder
	fmt.Fprintf(&table, "| plan order | parallel 1 | parallel 2 | parallel 3 |\n|---|---|---|---|\n")
	for _, name := range []string{"chains in turn", "chains interleaved"} {
		fmt.Fprintf(&table, "| %s |", name)
		for n := 1; n <= 3; n++ {
			scripts := map[string]string{}
			for _, id := range []string{"a1", "a2", "b1", "b2", "c1", "c2"} {
				steps := pulseSteps("feat(parts): add "+id, map[string]string{id + ".go": "package parts\n\n// V" + id + " is " + id + ".\nconst V" + id + " = 1\n"})
				scripts[id] = strings.ReplaceAll(steps, `{"tool_calls"`, fmt.Sprintf(`{"delay_ms": %d, "tool_calls"`, stepMS))
			}
			router, url := newPulseRouter(t, parallelMain("["+strings.Join(orders[name], ",")+"]"), scripts)
			w := newParallelWorld(t, url, goRepo)
			var start, end time.Time
			w.onEvent = func(ev workflow.Event) {
				if ev.Kind == "stage" && ev.Stage == string(workflow.StagePulsing) {
					start = time.Now()
				}
				if ev.Kind == "stage" && ev.Stage == string(workflow.StageReview) {
					end = time.Now()
				}
			}
			ctx := context.Background()
			wf, err := w.engine.Start(ctx, workflow.Task{Text: "parts", Name: "parts", Parallel: n})
			must(t, err)
			if wf, err = w.engine.Run(ctx, wf.ID); err != nil || wf.Status != store.WorkflowCompleted {
				t.Fatalf("%s, parallel %d: %v %s", name, n, err, wf.StatusReason)
			}
			router.check()
			fmt.Fprintf(&table, " %.1f s |", end.Sub(start).Seconds())
		}
		table.WriteString("\n")
	}
	t.Logf("pulsing stage wall time, 6 pulses in 3 chains of 2, %d ms per model step (2 steps a pulse):\n%s", stepMS, table.String())
}

// TestParallelStopResume: the workflow is stopped while pulses 2 and 3 run;
// both keep their work as recovery checkpoints, pulse 4 never starts, and
// resume finishes from the checkpoints.
func TestParallelStopResume(t *testing.T) {
	main := parallelMain(diamondPlan)
	router, url := newPulseRouter(t, main, map[string]string{
		"pulse-1": pulseSteps("feat(parts): add A1", map[string]string{"a.go": "package parts\n\n// A is the first part.\nfunc A() int { return 1 }\n"}),
		"pulse-2": crashPulse("b.go", bGo) + strings.ReplaceAll(resumeSteps("feat(parts): add B", "b.go"), "01-done", "03-done"),
		"pulse-3": crashPulse("c.go", cGo) + strings.ReplaceAll(resumeSteps("feat(parts): add C", "c.go"), "01-done", "03-done"),
		"pulse-4": pulseSteps("feat(parts): add D", map[string]string{"d.go": "package parts\n\n// D uses B and C.\nfunc D() int { return B() + C() }\n"}),
	})
	hold, arrived2, arrived3 := make(chan struct{}), make(chan struct{}), make(chan struct{})
	router.gate["pulse-2#2"], router.gate["pulse-3#2"] = hold, hold
	router.on["pulse-2#2"], router.on["pulse-3#2"] = arrived2, arrived3
	w := newParallelWorld(t, url, goRepo)
	ctx := context.Background()
	wf, err := w.engine.Start(ctx, workflow.Task{Text: "add the parts", Name: "parts", Parallel: 2})
	must(t, err)
	go func() {
		<-arrived2
		<-arrived3
		_ = w.engine.Stop(ctx, wf.ID, "stopped by the test")
	}()
	wf, err = w.engine.Run(ctx, wf.ID)
	close(hold)
	var h *workflow.Halt
	if !errors.As(err, &h) || wf.Status != store.WorkflowStopped {
		t.Fatalf("first run: %v, %s (%s); want stopped", err, wf.Status, wf.StatusReason)
	}
	checkPulseStates(t, w, wf, "after the stop", map[string]string{"pulse-1": "Succeeded recovery=false", "pulse-2": "Stopped recovery=true", "pulse-3": "Stopped recovery=true", "pulse-4": "Proposed recovery=false"})
	if wts := strings.TrimSpace(testkit.Git(t, w.dir, "worktree", "list")); strings.Count(wts, "\n") != 1 {
		t.Errorf("after the stop, worktrees other than the workflow's remain:\n%s", wts)
	}
	wf, err = w.engine.Resume(ctx, wf.ID)
	if err != nil || wf.Status != store.WorkflowCompleted {
		t.Fatalf("resume: %v, %s (%s)", err, wf.Status, wf.StatusReason)
	}
	router.check()
	w.checkCommits(t, wf, []string{"feat(parts): add A1", "feat(parts): add B", "feat(parts): add C", "feat(parts): add D"})
}

// TestParallelHaltLetsRunningFinish: pulse 3 fails (iteration limit) while
// pulse 2 runs; no new pulse starts, pulse 2 reaches its checkpoint and
// lands (it is before 3 in plan order), and the workflow halts at pulse 3
// with its work kept on its branch.
func TestParallelHaltLetsRunningFinish(t *testing.T) {
	write := func(f string) string {
		b, _ := json.Marshal(map[string]any{"name": "write_file", "args": map[string]string{"path": f, "content": "package parts\n", "reason": "Write " + f}})
		return string(b)
	}
	router, url := newPulseRouter(t, parallelMain(diamondPlan)[:strings.Index(parallelMain(diamondPlan), "-- 05-review")], map[string]string{
		"pulse-1": pulseSteps("feat(parts): add A1", map[string]string{"a.go": "package parts\n\n// A is the first part.\nfunc A() int { return 1 }\n"}),
		"pulse-2": pulseSteps("feat(parts): add B", map[string]string{"b.go": bGo}),
		"pulse-3": "-- 01.json --\n{\"tool_calls\": [" + write("c.go") + "]}\n-- 02.json --\n{\"tool_calls\": [" + write("c2.go") + "]}\n",
	}, "pulse-2", "pulse-3")
	failed := make(chan struct{})
	router.gate["pulse-2#2"] = failed // pulse 2 completes after 3 failed
	w := newParallelWorld(t, url, goRepo, func(c *workflow.Config) { c.MaxIterations = 2 })
	var once sync.Once
	w.onEvent = func(ev workflow.Event) {
		if ev.Kind == "pulse" && ev.PulseID == "pulse-3" && ev.Status == string(store.PulseFailed) {
			once.Do(func() { close(failed) })
		}
	}
	ctx := context.Background()
	wf, err := w.engine.Start(ctx, workflow.Task{Text: "add the parts", Name: "parts", Parallel: 2})
	must(t, err)
	wf, err = w.engine.Run(ctx, wf.ID)
	var h *workflow.Halt
	if !errors.As(err, &h) || h.Pulse != "pulse-3" || wf.Status != store.WorkflowHalted || !strings.Contains(wf.StatusReason, "iteration limit") {
		t.Fatalf("run: %v, %s (%s); want a halt at pulse-3 for the iteration limit", err, wf.Status, wf.StatusReason)
	}
	router.check()
	checkPulseStates(t, w, wf, "pulses", map[string]string{"pulse-1": "Succeeded recovery=false", "pulse-2": "Succeeded recovery=false", "pulse-3": "Failed recovery=true", "pulse-4": "Proposed recovery=false"})
	w.checkCommits(t, wf, []string{"feat(parts): add A1", "feat(parts): add B"})
	if kept := strings.TrimSpace(testkit.Git(t, w.dir, "for-each-ref", "--format=%(refname:short)", "refs/heads/autarch-pulse/")); kept != "autarch-pulse/parts/pulse-3" {
		t.Errorf("kept pulse branches %q, want pulse-3's", kept)
	}
	recoverCutLanding(t, w, wf)
}

// recoverCutLanding: a process that died after landing pulse 3 and before
// recording it (store: Running, its commit waiting; git: landed, branch
// deleted) is recovered as Succeeded with that commit, not run again.
func recoverCutLanding(t *testing.T, w *parallelWorld, wf store.Workflow) {
	ctx := context.Background()
	pulses, err := w.store.WorkflowPulses(ctx, wf.ID)
	must(t, err)
	var p3 store.Pulse
	for _, p := range pulses {
		if p.PlannedID == "pulse-3" {
			p3 = p
		}
	}
	branch := "refs/heads/" + git.WorkflowBranch(wf.Name)
	head := strings.TrimSpace(testkit.Git(t, w.dir, "rev-parse", branch))
	tree := strings.TrimSpace(testkit.Git(t, w.dir, "rev-parse", "autarch-pulse/parts/pulse-3^{tree}"))
	landed := strings.TrimSpace(testkit.Git(t, w.dir, "commit-tree", tree, "-p", head, "-m", "feat(parts): add C"))
	repo, err := git.Open(ctx, w.dir, git.Config{})
	must(t, err)
	must(t, w.store.StartPulse(ctx, p3.ID, store.PulseStart{PulseBranch: "autarch-pulse/parts/pulse-3", WorktreePath: repo.PulseTreePath("parts", "pulse-3")}))
	_, err = w.store.AcquireLease(ctx, p3.ID, wf.ID, "a dead process", 1, time.Minute)
	must(t, err)
	must(t, w.store.SetWaiting(ctx, p3.ID, "a dead process", landed))
	testkit.Git(t, w.dir, "update-ref", branch, landed, head)
	testkit.Git(t, w.dir, "update-ref", "-d", "refs/heads/autarch-pulse/parts/pulse-3")
	must(t, w.engine.Recover(ctx))
	got, err := w.store.Pulse(ctx, p3.ID)
	must(t, err)
	if got.Status != store.PulseSucceeded || got.CheckpointCommit != landed || got.Summary != "feat(parts): add C" {
		t.Errorf("recovered pulse-3 = %s %s %q; want Succeeded with %s", got.Status, got.CheckpointCommit, got.Summary, landed)
	}
}

// checkPulseStates checks each pulse's status and whether its checkpoint
// is a recovery one ("Stopped recovery=true"), by planned id.
func checkPulseStates(t *testing.T, w *parallelWorld, wf store.Workflow, what string, want map[string]string) {
	t.Helper()
	pulses, err := w.store.WorkflowPulses(context.Background(), wf.ID)
	must(t, err)
	got := map[string]string{}
	for _, p := range pulses {
		got[p.PlannedID] = fmt.Sprintf("%s recovery=%v", p.Status, p.IsRecoveryCheckpoint)
	}
	if !maps.Equal(got, want) {
		t.Errorf("%s: %v, want %v", what, got, want)
	}
}

// checkCommits checks the subjects of the commits on wf's workflow branch,
// oldest first.
func (w *parallelWorld) checkCommits(t *testing.T, wf store.Workflow, want []string) {
	t.Helper()
	if got := commitSubjects(t, w.dir, wf.BaseCommit, git.WorkflowBranch(wf.Name)); !slices.Equal(got, want) {
		t.Errorf("workflow branch commits = %q, want %q", got, want)
	}
}
