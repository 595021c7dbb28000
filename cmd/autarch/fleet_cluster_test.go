package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	kernel "github.com/autarch-dev/autarch/agent/run"
	"github.com/autarch-dev/autarch/agent/scripted"
	"github.com/autarch-dev/autarch/fleet"
)

// natsCluster starts n nats-servers with JetStream on loopback, joined by
// cluster routes; it returns them and their client URLs.
func natsCluster(t *testing.T, n int) ([]*server.Server, []string) {
	t.Helper()
	// The cluster's route ports are picked free and then given to the
	// servers: another process may take one in between, and that server
	// never gets ready. Such a cluster is shut down and made again on
	// other ports.
	for attempt := 1; ; attempt++ {
		srvs, urls, err := startNATSCluster(t, n)
		if err == nil {
			return srvs, urls
		}
		if attempt == 3 {
			t.Fatalf("a NATS cluster of %d: %v (3 attempts)", n, err)
		}
		t.Logf("a NATS cluster of %d: %v; starting it again on other ports", n, err)
	}
}

// startNATSCluster starts n nats-servers routed to each other (one alone
// when n is 1), each with JetStream; an error when one is not ready (and
// then none is left running).
func startNATSCluster(t *testing.T, n int) ([]*server.Server, []string, error) {
	t.Helper()
	ports := make([]int, n)
	for i := range ports {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ports[i] = ln.Addr().(*net.TCPAddr).Port
		ln.Close()
	}
	var routes []*url.URL
	for _, p := range ports {
		routes = append(routes, &url.URL{Scheme: "nats", Host: fmt.Sprintf("127.0.0.1:%d", p)})
	}
	var srvs []*server.Server
	stop := func() {
		for _, srv := range srvs {
			srv.Shutdown()
			srv.WaitForShutdown()
		}
	}
	for i := range n {
		opts := &server.Options{ServerName: fmt.Sprintf("n%d", i+1), Host: "127.0.0.1", Port: -1, JetStream: true,
			StoreDir: t.TempDir(), NoSigs: true, NoLog: true, Routes: routes,
			Cluster: server.ClusterOpts{Name: "autarch-test", Host: "127.0.0.1", Port: ports[i]}}
		if n == 1 { // a single server, no cluster
			opts.Routes, opts.Cluster = nil, server.ClusterOpts{}
		}
		srv, err := server.NewServer(opts)
		if err != nil {
			stop()
			return nil, nil, err
		}
		go srv.Start()
		srvs = append(srvs, srv)
	}
	var urls []string
	for i, srv := range srvs {
		if !srv.ReadyForConnections(30 * time.Second) {
			stop()
			return nil, nil, fmt.Errorf("nats-server n%d (cluster port %d) is not ready", i+1, ports[i])
		}
		urls = append(urls, srv.ClientURL())
	}
	t.Cleanup(stop)
	return srvs, urls, nil
}

// modelRouter serves one scripted model per fleet run: each request goes
// to the script of the run whose marker ("[fleet-N]", in the task) it
// carries; a run's next script (a takeover's) replaces its first with next.
type modelRouter struct {
	t  *testing.T
	mu sync.Mutex
	// scripts[n] are run n's scripts in order; cur[n] the one serving.
	scripts map[int][]*scripted.Server
	cur     map[int]int
	// ids maps a run's id to n: a request that does not quote the task
	// (preflight's) goes to the run its worker (the URL's first element,
	// each worker has its own) holds in the fleet.
	ids   map[string]int
	fleet *fleet.Fleet
	// last is the run each worker's last marked request named: the
	// answer when the fleet cannot be read (each worker runs one at a time).
	last map[string]int
}

// heldBy is the run the worker holds ("" for none). A NATS node is shut
// down mid-test, so a lookup may fail while the client fails over: it is
// tried again for a while before the worker is said to hold nothing.
func (m *modelRouter) heldBy(worker string) (int, bool) {
	m.mu.Lock()
	ids := make(map[string]int, len(m.ids))
	for id, n := range m.ids {
		ids[id] = n
	}
	m.mu.Unlock()
	for try := 0; try < 50; try++ {
		failed := false
		for id, n := range ids {
			r, err := m.fleet.Get(context.Background(), id)
			if err != nil {
				failed = true
				continue
			}
			if r.State == fleet.Running && r.Worker == worker {
				return n, true
			}
		}
		if !failed {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	return -1, false
}

func (m *modelRouter) register(id string, n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.ids[id] = n
}

var markerRE = regexp.MustCompile(`\[fleet-(\d+)\]`)

func (m *modelRouter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	var s *scripted.Server
	n, found := -1, false
	worker, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	if match := markerRE.FindSubmatch(body); match != nil {
		n, _ = strconv.Atoi(string(match[1]))
		found = true
	}
	if !found {
		n, found = m.heldBy(worker)
	}
	m.mu.Lock()
	if !found && strings.HasSuffix(r.URL.Path, "/chat/completions") {
		n, found = m.last[worker]
	} else if found {
		m.last[worker] = n
	}
	if found {
		if list := m.scripts[n]; m.cur[n] < len(list) {
			s = list[m.cur[n]]
		}
	} else if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		s = m.scripts[0][0] // models, embeddings: no step is used
	}
	m.mu.Unlock()
	if s == nil {
		m.t.Errorf("scripted model: a request names no fleet run: %.300s", body)
		http.Error(w, "no run marker", http.StatusBadRequest)
		return
	}
	s.ServeHTTP(w, r)
}

func (m *modelRouter) next(n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.cur[n]++
}

func (m *modelRouter) check() {
	for n, list := range m.scripts {
		for i, s := range list {
			for _, e := range s.Errors() {
				m.t.Errorf("run %d script %d: %s", n, i, e)
			}
			if r := s.Remaining(); r > 0 {
				m.t.Errorf("run %d script %d: %d step(s) never requested", n, i, r)
			}
		}
	}
}

func mustScript(t *testing.T, steps ...string) *scripted.Server {
	t.Helper()
	var b strings.Builder
	for i, s := range steps {
		fmt.Fprintf(&b, "-- %02d.json --\n%s\n", i+1, s)
	}
	sc, err := scripted.Parse([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	return scripted.NewServer(sc)
}

// quickSteps are a quick-path workflow that adds fn in file.
func quickSteps(fn, file string) []string {
	content := fmt.Sprintf("package calc\n\n// %s is a fleet test function.\nfunc %s(x int) int { return x }\n", fn, fn)
	return []string{
		`{"tool_calls": [{"name": "submit_scope", "args": {"reason": "Clear", "title": "Add ` + fn + `", "description": "Add ` + fn + `.", "in_scope": ["` + fn + `"], "out_of_scope": [], "recommended_path": "quick"}}]}`,
		`{"tool_calls": [{"name": "complete_preflight", "args": {"reason": "Nothing to do", "summary": "ok", "setupCommands": [], "buildSuccess": true, "baselinesRecorded": 0}}]}`,
		`{"tool_calls": [{"name": "write_file", "args": {"path": "` + file + `", "content": ` + strconv.Quote(content) + `, "reason": "Add ` + fn + `"}}]}`,
		`{"tool_calls": [{"name": "complete_pulse", "args": {"reason": "Done", "summary": "feat(calc): add ` + fn + `", "filesChanged": ["` + file + `"]}}]}`,
		`{"tool_calls": [{"name": "complete_review", "args": {"reason": "Fine", "recommendation": "approve", "summary": "` + fn + ` is fine."}}]}`,
	}
}

// fullSteps are a full-path workflow of two pulses, each adding a function.
func fullSteps(a, b string) []string {
	write := func(fn string) string {
		content := fmt.Sprintf("package calc\n\n// %s is a fleet test function.\nfunc %s(x int) int { return x }\n", fn, fn)
		return `{"tool_calls": [{"name": "write_file", "args": {"path": "` + strings.ToLower(fn) + `.go", "content": ` + strconv.Quote(content) + `, "reason": "Add ` + fn + `"}}]}`
	}
	done := func(fn string) string {
		return `{"tool_calls": [{"name": "complete_pulse", "args": {"reason": "Done", "summary": "feat(calc): add ` + fn + `", "filesChanged": ["` + strings.ToLower(fn) + `.go"]}}]}`
	}
	return []string{
		`{"tool_calls": [{"name": "submit_scope", "args": {"reason": "Clear", "title": "Add two", "description": "Add two.", "in_scope": ["two"], "out_of_scope": [], "recommended_path": "full"}}]}`,
		`{"tool_calls": [{"name": "submit_research", "args": {"reason": "Tiny", "summary": "calc.go holds Add.", "keyFiles": [{"path": "calc.go", "purpose": "ops"}], "recommendations": ["add files"]}}]}`,
		`{"tool_calls": [{"name": "submit_plan", "args": {"reason": "Two steps", "approachSummary": "Two files.", "pulses": [` +
			`{"id": "pulse-1", "title": "Add ` + a + `", "description": "Add ` + a + `", "expectedChanges": ["` + strings.ToLower(a) + `.go"], "estimatedSize": "small"},` +
			`{"id": "pulse-2", "title": "Add ` + b + `", "description": "Add ` + b + `", "expectedChanges": ["` + strings.ToLower(b) + `.go"], "estimatedSize": "small", "dependsOn": ["pulse-1"]}]}}]}`,
		`{"tool_calls": [{"name": "complete_preflight", "args": {"reason": "Builds", "summary": "builds", "setupCommands": [], "buildSuccess": true, "baselinesRecorded": 0}}]}`,
		write(a), done(a), write(b), done(b),
		`{"tool_calls": [{"name": "complete_review", "args": {"reason": "Fine", "recommendation": "approve", "summary": "Both fine."}}]}`,
	}
}

// jobSteps are a job that adds fn in file and commits it.
func jobSteps(branch, fn, file string) []string {
	patch := fmt.Sprintf("--- /dev/null\n+++ b/%s\n@@ -0,0 +1,4 @@\n+package calc\n+\n+// %s is a fleet test function.\n+func %s(x int) int { return x }\n", file, fn, fn)
	return []string{
		`{"tool_calls": [{"name": "create_branch", "args": {"reason": "My branch", "name": "` + branch + `"}}]}`,
		`{"tool_calls": [{"name": "apply_patch", "args": {"reason": "Add ` + fn + `", "patch": ` + strconv.Quote(patch) + `}}]}`,
		`{"expect": {"lastToolResultContains": "\"applied\":true"}, "tool_calls": [{"name": "commit_changes", "args": {"reason": "Commit", "message": "feat(calc): add ` + fn + `"}}]}`,
	}
}

// The fleet's acceptance: a 3-node NATS cluster, a bare remote, three
// workers (subprocesses with their own homes and clones), six runs
// (workflows and jobs). One worker is SIGKILLed mid-pulse and one NATS
// node is shut down: all six complete, each branch on the remote has its
// commits exactly once and in order, every commit builds, and the
// submitter's checkout is untouched.
func TestFleetClusterAcceptance(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a NATS cluster and three workers")
	}
	bin := buildBinary(t)
	srvs, urls := natsCluster(t, 3)
	natsURL := strings.Join(urls, ",")

	dir, remote, head := fleetRepo(t)

	// run 0 is killed in its pulse (script 0 ends in a model call that
	// never answers); its takeover resumes it from its saved state: the
	// scope card and the preflight are not asked again, the interrupted
	// pulse runs again from its start (script 1 begins in the pulse).
	half := quickSteps("Half", "half.go")
	slow := append(slices.Clone(half[:3]), `{"delay_ms": 120000, "text": "never answered: the worker is killed"}`)
	resumed := `{"expect": {"tools": ["complete_pulse"]}, ` + strings.TrimPrefix(half[2], "{")
	router := &modelRouter{t: t, cur: map[int]int{}, ids: map[string]int{}, last: map[string]int{}, scripts: map[int][]*scripted.Server{
		0: {mustScript(t, slow...), mustScript(t, resumed, half[3], half[4])},
		1: {mustScript(t, quickSteps("Double", "double.go")...)},
		2: {mustScript(t, fullSteps("Triple", "Quad")...)},
		3: {mustScript(t, quickSteps("Neg", "neg.go")...)},
		4: {mustScript(t, jobSteps("add-inc", "Inc", "inc.go")...)},
		5: {mustScript(t, jobSteps("add-dec", "Dec", "dec.go")...)},
	}}
	hs := httptest.NewServer(router)
	defer hs.Close()
	defer router.check()

	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	f := openFleetWith(ctx, t, natsURL, fleet.Options{Lease: 3 * time.Second, Replicas: 3}, nats.MaxReconnects(-1))
	router.fleet = f
	workers := map[string]*exec.Cmd{}
	logs := map[string]*bytes.Buffer{}
	for i := 1; i <= 3; i++ {
		name := fmt.Sprintf("w%d", i)
		cmd := fleetEnv(t, autarchCmd(ctx, bin, t.TempDir(), hs.URL+"/"+name+"/v1", "worker", "--nats", natsURL, "--dir", t.TempDir(), "--name", name, "--lease", "3s"), t.TempDir())
		logs[name] = &bytes.Buffer{}
		cmd.Stdout, cmd.Stderr = logs[name], logs[name]
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		workers[name] = cmd
	}
	defer func() {
		for name, cmd := range workers {
			cmd.Process.Signal(syscall.SIGTERM)
			cmd.Wait()
			if t.Failed() {
				t.Logf("worker %s:\n%s", name, logs[name])
			}
		}
	}()

	submit := func(n int, args ...string) string {
		t.Helper()
		args = append([]string{"submit", "--nats", natsURL, "--repo", remote, "--yes"}, args...)
		var out, errb bytes.Buffer
		cmd := fleetEnv(t, autarchCmd(ctx, bin, dir, "", args...), t.TempDir())
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("autarch submit %d: %v\n%s", n, err, errb.String())
		}
		id := strings.TrimSpace(out.String())
		router.register(id, n)
		return id
	}
	ids := []string{
		submit(0, "--name", "half", "--path", "quick", "Add Half [fleet-0]"),
		submit(1, "--name", "double", "Add Double [fleet-1]"),
		submit(2, "--name", "two", "Add Triple and Quad [fleet-2]"),
		submit(3, "--name", "neg", "Add Neg [fleet-3]"),
		submit(4, "--kind", "job", "--mode", "genius", "Add Inc [fleet-4]"),
		submit(5, "--kind", "job", "--mode", "genius", "Add Dec [fleet-5]"),
	}

	// get reads a run with a deadline of its own: a JetStream request sent
	// while the client fails over from a lost node can go unanswered, and
	// with ctx's deadline (minutes away) it would wait for all of it.
	get := func(id string) (fleet.Run, error) {
		gctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		return f.Get(gctx, id)
	}
	// Kill the worker of run 0 in its pulse: its model call never answers.
	slowServer := router.scripts[0][0]
	var victim string
	for victim == "" {
		if ctx.Err() != nil {
			t.Fatal("run 0 never reached its slow model call")
		}
		r, err := get(ids[0])
		if err == nil && r.State.Ended() {
			t.Fatalf("run 0 ended %s before its slow model call: %s", r.State, r.Reason)
		}
		if slowServer.Remaining() == 0 && err == nil && r.State == fleet.Running {
			victim = r.Worker
		}
		time.Sleep(50 * time.Millisecond)
	}
	router.next(0)
	if err := workers[victim].Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	workers[victim].Wait()
	delete(workers, victim)
	t.Logf("killed %s mid-pulse", victim)
	// and lose one NATS node
	srvs[2].Shutdown()

	deadline := time.Now().Add(6 * time.Minute)
	var runs []fleet.Run
	for {
		runs = runs[:0]
		done := 0
		for _, id := range ids {
			r, err := get(id)
			if err != nil {
				continue
			}
			runs = append(runs, r)
			if r.State == fleet.Completed {
				done++
			} else if r.State.Ended() {
				t.Fatalf("run %s ended %s: %s\n%s", id, r.State, r.Reason, runEvents(f, id))
			}
		}
		if done == len(ids) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not all runs completed: %+v", runs)
		}
		time.Sleep(200 * time.Millisecond)
	}

	if r := runs[0]; r.Attempts != 2 {
		t.Errorf("run 0 took %d attempts, want 2 (a takeover)", r.Attempts)
	}
	want := map[int][]string{0: {"feat(calc): add Half"}, 1: {"feat(calc): add Double"}, 2: {"feat(calc): add Triple", "feat(calc): add Quad"},
		3: {"feat(calc): add Neg"}, 4: {"feat(calc): add Inc"}, 5: {"feat(calc): add Dec"}}
	build := t.TempDir()
	for i, r := range runs {
		// the branch's commits, exactly once and in order, are the ones
		// the workers recorded as pushed
		commits := strings.Fields(gitCmd(t, remote, "rev-list", "--reverse", head+".."+r.Branch))
		if !slices.Equal(commits, r.Commits) {
			t.Errorf("run %d: the remote's %s has %v, the record %v", i, r.Branch, commits, r.Commits)
		}
		subjects := strings.Split(strings.TrimSpace(gitCmd(t, remote, "log", "--reverse", "--format=%s", head+".."+r.Branch)), "\n")
		if !slices.Equal(subjects, want[i]) {
			t.Errorf("run %d: %s has commits %q, want %q", i, r.Branch, subjects, want[i])
		}
		for _, c := range commits {
			wt := filepath.Join(build, c)
			gitCmd(t, remote, "worktree", "add", "-q", "--detach", wt, c)
			cmd := exec.Command("go", "build", "./...")
			cmd.Dir = wt
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("run %d: commit %s does not build: %v\n%s", i, c, err, out)
			}
		}
	}
	if got := gitCmd(t, dir, "rev-parse", "HEAD"); strings.TrimSpace(got) != head || gitCmd(t, dir, "status", "--porcelain") != "" {
		t.Errorf("the submitter's checkout changed")
	}
	if out := gitCmd(t, dir, "for-each-ref", "refs/heads/"); strings.Count(out, "\n") != 1 {
		t.Errorf("the submitter's repository got branches:\n%s", out)
	}
}

// runEvents is the text of a run's events so far (for failure messages).
func runEvents(f *fleet.Fleet, id string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	var b strings.Builder
	f.Follow(ctx, id, func(ev kernel.Event) bool {
		fmt.Fprintf(&b, "%s %s %s\n", ev.Kind, ev.Status, ev.Text)
		return true
	})
	return b.String()
}

// fleetRepo is the submitter's repository (a Go package with a passing
// test), a bare remote cloned from it, and its HEAD.
func fleetRepo(t *testing.T) (dir, remote, head string) {
	t.Helper()
	dir = t.TempDir()
	for name, data := range map[string]string{
		"go.mod":       "module example.com/calc\n\ngo 1.22\n",
		"calc.go":      "package calc\n\n// Add adds two numbers.\nfunc Add(a, b int) int { return a + b }\n",
		"calc_test.go": "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 3) != 5 {\n\t\tt.Fatal(\"Add\")\n\t}\n}\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"-c", "user.name=U", "-c", "user.email=u@example.com", "commit", "-q", "-m", "initial"}} {
		gitCmd(t, dir, args...)
	}
	remote = filepath.Join(t.TempDir(), "remote.git")
	gitCmd(t, t.TempDir(), "clone", "-q", "--bare", dir, remote)
	return dir, remote, strings.TrimSpace(gitCmd(t, dir, "rev-parse", "HEAD"))
}
