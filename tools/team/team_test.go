package team

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/autarch-dev/autarch/internal/testkit"
	"github.com/autarch-dev/autarch/tools"
)

// fakeJob records what the tools tell the job.
type fakeJob struct {
	id   string
	mode Mode

	mu         sync.Mutex
	branches   []string
	analyses   []Analysis
	plans      []Plan
	escalation []Escalation
	commits    []Commit
	approve    bool
	feedback   string
	base       string // BaseCommit ("": HEAD)
}

func (j *fakeJob) ID() string { return j.id }
func (j *fakeJob) Mode() Mode { return j.mode }
func (j *fakeJob) BaseCommit() string {
	if j.base == "" {
		return "HEAD"
	}
	return j.base
}
func (j *fakeJob) BranchCreated(_ context.Context, branch, base string) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.branches = append(j.branches, branch+" from "+base)
	return nil
}
func (j *fakeJob) RecordAnalysis(_ context.Context, a Analysis) (string, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.analyses = append(j.analyses, a)
	return "analysis-" + string(rune('0'+len(j.analyses))), nil
}
func (j *fakeJob) SavePlan(_ context.Context, p Plan) (string, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.plans = append(j.plans, p)
	return "plan-" + string(rune('0'+len(j.plans))), nil
}
func (j *fakeJob) Escalate(_ context.Context, e Escalation) (string, bool, string, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.escalation = append(j.escalation, e)
	return "esc-" + string(rune('0'+len(j.escalation))), j.approve, j.feedback, nil
}
func (j *fakeJob) Committed(_ context.Context, c Commit) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.commits = append(j.commits, c)
	return nil
}

// repo is a user's repository with a bare remote (origin, its HEAD at
// main) and a job's linked worktree, detached at main, outside it.
type repo struct {
	user, remote, wt string
}

func runGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@x", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	testkit.WriteFiles(t, dir, files)
}

func newRepo(t *testing.T, files map[string]string) repo {
	t.Helper()
	base := t.TempDir()
	r := repo{user: filepath.Join(base, "user"), remote: filepath.Join(base, "remote.git"), wt: filepath.Join(base, "jobs", "wt")}
	runGit(t, base, "init", "-q", "--bare", "-b", "main", r.remote)
	runGit(t, base, "init", "-q", "-b", "main", r.user)
	write(t, r.user, files)
	runGit(t, r.user, "add", "-A")
	runGit(t, r.user, "commit", "-q", "-m", "initial")
	runGit(t, r.user, "remote", "add", "origin", r.remote)
	runGit(t, r.user, "push", "-q", "-u", "origin", "main")
	runGit(t, r.user, "remote", "set-head", "origin", "main")
	runGit(t, r.user, "worktree", "add", "-q", "--detach", r.wt, "main")
	return r
}

// userState is what must not change in the user's working tree: HEAD,
// the index file and the files' status.
func (r repo) userState(t *testing.T) string {
	t.Helper()
	index, err := os.ReadFile(filepath.Join(r.user, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(index)
	return runGit(t, r.user, "rev-parse", "HEAD") + " " + runGit(t, r.user, "symbolic-ref", "HEAD") + " " + hex.EncodeToString(sum[:]) + " [" + runGit(t, r.user, "status", "--porcelain") + "]"
}

type harness struct {
	t   *testing.T
	e   *tools.Engine
	s   *tools.Session
	job *fakeJob
}

func newHarness(t *testing.T, root string, job *fakeJob) *harness {
	t.Helper()
	reg, err := Registry(job, Deps{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := tools.NewSession(tools.SessionConfig{Root: root, Mode: tools.ModeYolo, Role: "job",
		Context: tools.ToolContext{JobID: job.id, TraceID: "trace-1", Mode: string(job.mode), RepoPath: root}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return &harness{t: t, e: tools.NewEngine(reg, nil, slog.New(slog.DiscardHandler)), s: s, job: job}
}

// call runs a tool through the engine and decodes its JSON result.
func (h *harness) call(name string, args map[string]any) (map[string]any, tools.Result) {
	h.t.Helper()
	res, err := h.e.Call(context.Background(), h.s, name, testkit.ToolArgs(h.t, args))
	if err != nil {
		h.t.Fatalf("%s: %v", name, err)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(res.Output), &m); err != nil {
		h.t.Fatalf("%s: result is not a JSON object: %s", name, res.Output)
	}
	return m, res
}

// expect checks a result's fields (JSON values as decoded) and, when code
// is set, its error code.
func expect(t *testing.T, got map[string]any, res tools.Result, code string, want map[string]any) {
	t.Helper()
	if code != "" {
		if got["code"] != code || !res.Failed {
			t.Errorf("code = %v (failed %v), want %s: %s", got["code"], res.Failed, code, res.Output)
		}
	} else if res.Failed {
		t.Errorf("unexpected failure: %s", res.Output)
	}
	for k, v := range want {
		g, _ := json.Marshal(got[k])
		w, _ := json.Marshal(v)
		if string(g) != string(w) {
			t.Errorf("%s = %s, want %s (%s)", k, g, w, res.Output)
		}
	}
}

func TestRegistryIsTheTeamCatalog(t *testing.T) {
	reg, err := Registry(nil, Deps{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"apply_patch", "call_hierarchy", "commit_changes", "create_branch", "create_plan", "document_symbols", "find_files",
		"find_references", "get_repo_state", "go_to_definition", "hover", "list_files", "read_file", "read_lints", "record_analysis",
		"rename_symbol", "request_human_review", "run_lint", "run_tests", "search_code", "semantic_search", "workspace_symbols"}
	if got := reg.Names(); !slices.Equal(got, want) {
		t.Errorf("names = %v\nwant %v", got, want)
	}
	for _, tl := range reg.List() {
		c, ok := tools.CostOf(tl)
		if _, listed := specCostNames[tl.Name()]; listed != ok {
			t.Errorf("%s: cost %v, listed in the spec's table %v", tl.Name(), ok, listed)
		}
		if ok && !strings.HasSuffix(tl.Description(), c.String()+"\n") {
			t.Errorf("%s: description does not end with its cost: %q", tl.Name(), tl.Description())
		}
		var schema map[string]any
		if err := json.Unmarshal(tl.Schema(), &schema); err != nil || schema["type"] != "object" {
			t.Errorf("%s: schema %s", tl.Name(), tl.Schema())
		}
	}
	if c, _ := tools.CostOf(must(reg.Get("run_tests"))); c != (tools.Cost{Hint: "expensive", Typical: "5-60s"}) {
		t.Errorf("run_tests cost = %v", c)
	}
	h := newHarness(t, t.TempDir(), &fakeJob{id: "x"})
	h.e = tools.NewEngine(reg, nil, slog.New(slog.DiscardHandler))
	if _, res := h.call("create_plan", map[string]any{"steps": []any{map[string]any{"description": "d", "tool": "apply_patch"}}}); !strings.Contains(res.Output, "works for a job only") {
		t.Errorf("a listing's tool without a job = %s", res.Output)
	}
}

var specCostNames = map[string]bool{"read_file": true, "search_code": true, "list_files": true, "get_repo_state": true, "create_branch": true,
	"apply_patch": true, "run_tests": true, "run_lint": true, "commit_changes": true, "semantic_search": true, "web_search": true}

func must[T any](v T, ok bool) T {
	if !ok {
		panic("missing")
	}
	return v
}
