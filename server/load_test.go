package server

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/autarch-dev/autarch/agent/scripted"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/internal/testkit"
)

// The load the benchmark holds over one LSP connection.
const (
	loadSearchers   = 100             // autarch.search requests always in flight
	loadWorkflows   = 3               // workflows running at once
	loadFiles       = 300             // .md and .txt files in the searched repository
	workflowTimeout = 3 * time.Minute // a workflow that has not halted by then is an error
)

// loadWords are what the repository's files are written in and the
// searches ask for.
const loadWords = `invoice ledger refund payment customer account balance audit
	report quarterly forecast budget shipment warehouse inventory supplier order delivery route
	schedule meeting agenda minutes decision proposal review approval contract renewal license
	security incident response backup restore migration database index cache latency throughput
	release rollout feature flag experiment metric dashboard alert oncall escalation runbook
	onboarding training handbook policy holiday travel expense receipt reimbursement hiring`

// TestLoad holds loadSearchers concurrent autarch.search requests and
// loadWorkflows concurrent workflows (a stateless scripted model) over one
// LSP connection for AUTARCH_BENCH_LOAD_SECONDS (default 60), then prints
// errors (the test fails on any), search latency, workflows completed,
// peak RSS and goroutines after shutdown. The server, the client and the
// model all run in this test process, so the RSS is theirs together. It
// runs only with AUTARCH_BENCH_LOAD=1 (make bench-load).
func TestLoad(t *testing.T) {
	if os.Getenv("AUTARCH_BENCH_LOAD") == "" {
		t.Skip("set AUTARCH_BENCH_LOAD=1 (make bench-load) to hold the load")
	}
	duration := 60 * time.Second
	if s := os.Getenv("AUTARCH_BENCH_LOAD_SECONDS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			t.Fatalf("AUTARCH_BENCH_LOAD_SECONDS=%q: want a positive number of seconds", s)
		}
		duration = time.Duration(n) * time.Second
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // the code index stays out of the user's cache
	dir := t.TempDir()
	vocabulary := strings.Fields(loadWords)
	if err := writeLoadRepo(dir, vocabulary); err != nil {
		t.Fatal(err)
	}

	goroutinesBefore := runtime.NumGoroutine()
	model := &loadModel{}
	hs := httptest.NewServer(model)
	defer hs.Close()
	errs := &errorLog{}
	h := newHarness(t, wired)
	h.onCall = func(method string, params json.RawMessage) (any, error) {
		switch method {
		case editor.MethodApprove:
			return editor.Verdict{Decision: editor.DecisionApprove}, nil
		case editor.MethodAskQuestions, "workspace/applyEdit":
			errs.add("unexpected %s: %s", method, params)
			return nil, fmt.Errorf("the load client does not answer %s", method)
		}
		return nil, nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	halts := make(chan editor.WorkflowEvent, 16)
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		drainNotes(ctx, h.noteCh, halts, errs)
	}()

	h.initFolder(dir, "load", map[string]any{"window": map[string]any{"workDoneProgress": true}, "workspace": map[string]any{"applyEdit": true},
		"experimental": map[string]any{"autarch": map[string]any{"approvals": true, "questions": true}}},
		editor.Settings{Model: editor.ModelSettings{Name: "load", BaseURL: hs.URL + "/v1"}})
	h.setTestKey()
	h.initialized()

	// The first search builds the index; the load starts once it answers.
	indexed := time.Now()
	if err := waitIndexed(ctx, h, 60*time.Second); err != nil {
		t.Fatal(err)
	}
	indexTime := time.Since(indexed)

	start := time.Now()
	end := start.Add(duration)
	results := make([]searchStats, loadSearchers)
	var wg sync.WaitGroup
	for i := range loadSearchers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = searchLoad(ctx, h, vocabulary, uint64(i), end, errs)
		}()
	}
	wfs := runWorkflows(ctx, h, end, halts, errs)
	wg.Wait()
	elapsed := time.Since(start)
	var list []editor.WorkflowSummary
	if err := h.call(editor.MethodWorkflows, map[string]any{}, &list); err != nil {
		errs.add("workflows: %v", err)
	}
	for _, w := range list {
		if w.Status == "Completed" && w.PulsesDone != 1 {
			errs.add("workflow %s completed with %d pulses done, want 1", w.Name, w.PulsesDone)
		}
	}
	peakRSS, rssErr := procStatus("VmHWM")
	if rssErr != nil {
		errs.add("peak RSS: %v", rssErr)
	}

	if code := h.shutdownExit(); code != 0 {
		errs.add("exit code %d after shutdown", code)
	}
	h.client.Close()
	<-h.client.Done()
	cancel()
	<-drained
	hs.Close()
	goroutinesAfter := settleGoroutines(goroutinesBefore, 10*time.Second)
	for _, u := range model.unexpectedRequests() {
		errs.add("model: %s", u)
	}

	var all searchStats
	for _, r := range results {
		all.latencies = append(all.latencies, r.latencies...)
		all.empty += r.empty
	}
	slices.Sort(all.latencies)
	slices.Sort(wfs.durations)
	load := "unknown"
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		load = strings.Join(strings.Fields(string(b))[:3], " ")
	}
	n, first := errs.report()
	fmt.Printf("\nload over one LSP connection: %d concurrent autarch.search, %d concurrent workflows, %s (%d files; the first search with hits after %s)\n\n",
		loadSearchers, loadWorkflows, elapsed.Round(time.Millisecond), loadFiles, indexTime.Round(time.Millisecond))
	fmt.Printf("| measure | value |\n|---|---|\n")
	fmt.Printf("| errors | %d |\n", n)
	fmt.Printf("| searches | %d (%.0f/s; %d without hits) |\n", len(all.latencies), float64(len(all.latencies))/elapsed.Seconds(), all.empty)
	fmt.Printf("| search latency p50 / p99 / max | %s / %s / %s |\n", percentile(all.latencies, 50), percentile(all.latencies, 99), percentile(all.latencies, 100))
	fmt.Printf("| workflows completed | %d (started %d) |\n", len(wfs.durations), wfs.started)
	fmt.Printf("| workflow duration p50 / max | %s / %s |\n", percentile(wfs.durations, 50), percentile(wfs.durations, 100))
	fmt.Printf("| model requests | %d |\n", model.served())
	fmt.Printf("| peak RSS (VmHWM, server + client + model in one process) | %s |\n", peakRSS)
	fmt.Printf("| goroutines before / after shutdown | %d / %d |\n", goroutinesBefore, goroutinesAfter)
	fmt.Printf("| load average (1/5/15 min), CPUs | %s, %d |\n\n", load, runtime.NumCPU())
	if goroutinesAfter > goroutinesBefore {
		t.Logf("goroutines left after shutdown:\n%s", goroutineDump())
	}
	if n > 0 {
		t.Errorf("%d error(s) under load; the first:\n%s", n, strings.Join(first, "\n"))
	}
	if len(wfs.durations) == 0 {
		t.Error("no workflow completed under load")
	}
}

// writeLoadRepo fills dir with a git repository of plain text files: no
// test runner is detected, so quality gates have nothing to run, and the
// code search has loadFiles files to look through.
func writeLoadRepo(dir string, vocabulary []string) error {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range loadFiles {
		ext := ".md"
		if i%2 == 1 {
			ext = ".txt"
		}
		path := filepath.Join(dir, fmt.Sprintf("topic-%d", i%10), fmt.Sprintf("doc-%03d%s", i, ext))
		var b strings.Builder
		fmt.Fprintf(&b, "# %s %s\n\n", vocabulary[r.IntN(len(vocabulary))], vocabulary[r.IntN(len(vocabulary))])
		for range 40 {
			for w := range 8 + r.IntN(5) {
				if w > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(vocabulary[r.IntN(len(vocabulary))])
			}
			b.WriteString(".\n")
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("write the repository: %w", err)
		}
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			return fmt.Errorf("write the repository: %w", err)
		}
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"-c", "user.name=U", "-c", "user.email=u@example.com", "commit", "-q", "-m", "initial"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %v: %w\n%s", args, err, out)
		}
	}
	return nil
}

// errorLog counts the errors seen under load and keeps the first few.
type errorLog struct {
	mu    sync.Mutex
	n     int
	first []string
}

func (l *errorLog) add(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.n++
	if len(l.first) < 10 {
		l.first = append(l.first, fmt.Sprintf(format, args...))
	}
}

func (l *errorLog) report() (int, []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n, slices.Clone(l.first)
}

// drainNotes reads every notification the server sends (a full noteCh
// would stall the connection), passes workflow halts on and counts error
// and warning messages as errors.
func drainNotes(ctx context.Context, notes <-chan note, halts chan<- editor.WorkflowEvent, errs *errorLog) {
	for {
		select {
		case <-ctx.Done():
			return
		case n := <-notes:
			switch n.method {
			case editor.MethodWorkflowEvent:
				var ev editor.WorkflowEvent
				if err := json.Unmarshal(n.params, &ev); err != nil {
					errs.add("workflow event %s: %v", n.params, err)
					continue
				}
				if ev.Kind != "halt" {
					continue
				}
				select {
				case halts <- ev:
				case <-ctx.Done():
					return
				}
			case "window/showMessage":
				var m struct {
					Type    int    `json:"type"`
					Message string `json:"message"`
				}
				json.Unmarshal(n.params, &m)
				if m.Type == 1 || m.Type == 2 { // Error, Warning
					errs.add("showMessage: %s", m.Message)
				}
			}
		}
	}
}

// search runs one autarch.search over the connection.
func search(ctx context.Context, h *harness, query string) ([]editor.SearchHit, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	var hits []editor.SearchHit
	_, err := h.client.Call(ctx, "workspace/executeCommand", map[string]any{"command": editor.CommandSearch,
		"arguments": []any{editor.SearchParams{Query: query}}}, &hits)
	if err != nil {
		return nil, fmt.Errorf("search %q: %w", query, err)
	}
	return hits, nil
}

// waitIndexed searches until the index answers with hits.
func waitIndexed(ctx context.Context, h *harness, timeout time.Duration) error {
	var failed error
	err := testkit.Poll(timeout, 100*time.Millisecond, func() error {
		hits, err := search(ctx, h, "invoice ledger")
		if err != nil {
			failed = err
			return nil
		}
		if len(hits) == 0 {
			return errors.New("the index found nothing")
		}
		return nil
	})
	return cmp.Or(failed, err)
}

// searchStats is what one searcher measured.
type searchStats struct {
	latencies []time.Duration
	empty     int // searches answered without hits
}

// searchLoad keeps one search in flight until end.
func searchLoad(ctx context.Context, h *harness, vocabulary []string, seed uint64, end time.Time, errs *errorLog) searchStats {
	r := rand.New(rand.NewPCG(seed, 7))
	var st searchStats
	for time.Now().Before(end) {
		q := vocabulary[r.IntN(len(vocabulary))] + " " + vocabulary[r.IntN(len(vocabulary))]
		t0 := time.Now()
		hits, err := search(ctx, h, q)
		if err != nil {
			errs.add("%v", err)
			continue
		}
		st.latencies = append(st.latencies, time.Since(t0))
		if len(hits) == 0 {
			st.empty++
		}
	}
	return st
}

// workflowStats is what the workflow loop measured.
type workflowStats struct {
	started   int
	durations []time.Duration // of the completed workflows
}

// runWorkflows keeps loadWorkflows workflows running until end, then
// waits for the running ones to halt. Each asks the model to write its
// own file.
func runWorkflows(ctx context.Context, h *harness, end time.Time, halts <-chan editor.WorkflowEvent, errs *errorLog) workflowStats {
	var st workflowStats
	running := map[string]time.Time{}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		for len(running) < loadWorkflows && time.Now().Before(end) {
			name := fmt.Sprintf("load-%04d", st.started+1)
			var ref editor.WorkflowRef
			callCtx, cancel := context.WithTimeout(ctx, time.Minute)
			_, err := h.client.Call(callCtx, "workspace/executeCommand", map[string]any{"command": editor.CommandNewWorkflow,
				"arguments": []any{editor.NewWorkflowParams{Task: fmt.Sprintf("Write the file out/%s.txt with a short note.", name), Name: name}}}, &ref)
			cancel()
			st.started++
			if err != nil {
				errs.add("start workflow %s: %v", name, err)
				break
			}
			running[ref.WorkflowID] = time.Now()
		}
		if len(running) == 0 {
			return st
		}
		select {
		case ev := <-halts:
			began, ok := running[ev.WorkflowID]
			if !ok {
				errs.add("halt of a workflow not running: %+v", ev)
				continue
			}
			delete(running, ev.WorkflowID)
			if ev.Status != "Completed" {
				errs.add("workflow %s halted %s in %s: %s", ev.WorkflowID, ev.Status, ev.Stage, ev.Text)
				continue
			}
			st.durations = append(st.durations, time.Since(began))
		case now := <-tick.C:
			for id, began := range running {
				if now.Sub(began) > workflowTimeout {
					errs.add("workflow %s did not halt within %s", id, workflowTimeout)
					delete(running, id)
				}
			}
		case <-ctx.Done():
			errs.add("workflows: %v", ctx.Err())
			return st
		}
	}
}

// percentile is the p-th percentile of sorted durations (0 when empty).
func percentile(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := (len(sorted)*p + 99) / 100
	i = min(max(i, 1), len(sorted)) - 1
	return sorted[i].Round(100 * time.Microsecond)
}

// procStatus reads one field of /proc/self/status (e.g. VmHWM, the peak
// resident set size).
func procStatus(field string) (string, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return "", fmt.Errorf("read %s: %w", field, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			return strings.TrimSpace(v), nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", fmt.Errorf("read %s: %w", field, err)
	}
	return "", fmt.Errorf("no %s in /proc/self/status", field)
}

// settleGoroutines waits up to timeout for the goroutine count to come
// back to want and returns the count it settled at.
func settleGoroutines(want int, timeout time.Duration) int {
	n := runtime.NumGoroutine()
	_ = testkit.Poll(timeout, 50*time.Millisecond, func() error {
		if n = runtime.NumGoroutine(); n > want {
			return fmt.Errorf("%d goroutines, want %d", n, want)
		}
		return nil
	})
	return n
}

func goroutineDump() string {
	buf := make([]byte, 1<<20)
	return string(buf[:runtime.Stack(buf, true)])
}

// loadModel is an OpenAI-compatible chat model that answers from the
// request alone (the tools offered and the conversation so far), so any
// number of workflows can use it at once: the quick path's scope, a
// preflight with nothing to set up, a pulse that writes the file the task
// names and completes, and an approving review.
type loadModel struct {
	mu         sync.Mutex
	requests   int
	unexpected []string
}

func (m *loadModel) served() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.requests
}

func (m *loadModel) unexpectedRequests() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.unexpected)
}

func (m *loadModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.NotFound(w, r)
		return
	}
	var req scripted.ChatRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		m.refuse(w, "bad request body: %v", err)
		return
	}
	m.mu.Lock()
	m.requests++
	m.mu.Unlock()
	name, args, err := reply(req)
	if err != nil {
		m.refuse(w, "%v", err)
		return
	}
	rawArgs, err := json.Marshal(args)
	if err != nil {
		m.refuse(w, "%v", err)
		return
	}
	if req.Stream {
		streamToolCall(w, name, string(rawArgs))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-load", "object": "chat.completion", "created": time.Now().Unix(), "model": "load",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "tool_calls", "message": map[string]any{
			"role": "assistant", "content": "", "tool_calls": []any{toolCallChunk(name, string(rawArgs))}}}},
		"usage": map[string]int{"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
	})
}

func (m *loadModel) refuse(w http.ResponseWriter, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	m.mu.Lock()
	m.unexpected = append(m.unexpected, msg)
	m.mu.Unlock()
	b, _ := json.Marshal("load model: " + msg)
	http.Error(w, `{"error":{"message":`+string(b)+`}}`, http.StatusBadRequest)
}

// taskFile finds the file a workflow's task names.
var taskFile = regexp.MustCompile(`out/load-[0-9]+\.txt`)

// reply is the tool call that answers req.
func reply(req scripted.ChatRequest) (string, map[string]any, error) {
	offered := map[string]bool{}
	for _, t := range req.Tools {
		offered[t.Function.Name] = true
	}
	var conversation strings.Builder
	toolResults := 0
	for _, msg := range req.Messages {
		conversation.WriteString(scripted.MessageText(msg.Content))
		if msg.Role == "tool" {
			toolResults++
		}
	}
	switch {
	case offered["submit_scope"]:
		return "submit_scope", map[string]any{"reason": "Clear", "title": "Write a note", "description": "Write one note file.",
			"in_scope": []string{"the note"}, "out_of_scope": []string{}, "recommended_path": "quick"}, nil
	case offered["complete_preflight"]:
		return "complete_preflight", map[string]any{"reason": "Nothing to set up", "summary": "ok", "setupCommands": []string{},
			"buildSuccess": true, "baselinesRecorded": 0}, nil
	case offered["complete_pulse"]:
		file := taskFile.FindString(conversation.String())
		if file == "" {
			return "", nil, fmt.Errorf("no out/load-N.txt in the pulse's conversation")
		}
		if toolResults == 0 && offered["write_file"] {
			return "write_file", map[string]any{"reason": "Write the note", "path": file, "content": "A short note.\n"}, nil
		}
		return "complete_pulse", map[string]any{"reason": "Done", "summary": "docs(out): add " + filepath.Base(file),
			"filesChanged": []string{file}}, nil
	case offered["complete_review"]:
		return "complete_review", map[string]any{"reason": "Fine", "recommendation": "approve", "summary": "The note is there."}, nil
	}
	names := make([]string, 0, len(offered))
	for n := range offered {
		names = append(names, n)
	}
	slices.Sort(names)
	return "", nil, fmt.Errorf("no answer for a request offering %v", names)
}

func toolCallChunk(name, args string) map[string]any {
	return map[string]any{"index": 0, "id": "call_1", "type": "function", "function": map[string]any{"name": name, "arguments": args}}
}

// streamToolCall answers with server-sent events as agent/scripted does:
// the role, the call with its arguments in two chunks, the finish reason,
// usage, [DONE].
func streamToolCall(w http.ResponseWriter, name, args string) {
	w.Header().Set("Content-Type", "text/event-stream")
	flusher, _ := w.(http.Flusher)
	send := func(v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", b)
		if flusher != nil {
			flusher.Flush()
		}
	}
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": "chatcmpl-load", "object": "chat.completion.chunk", "created": time.Now().Unix(), "model": "load",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
	}
	half := len(args) / 2
	send(chunk(map[string]any{"role": "assistant", "content": ""}, nil))
	send(chunk(map[string]any{"tool_calls": []any{toolCallChunk(name, args[:half])}}, nil))
	send(chunk(map[string]any{"tool_calls": []any{map[string]any{"index": 0, "function": map[string]any{"arguments": args[half:]}}}}, nil))
	send(chunk(map[string]any{}, "tool_calls"))
	send(map[string]any{"id": "chatcmpl-load", "object": "chat.completion.chunk", "created": time.Now().Unix(), "model": "load", "choices": []any{},
		"usage": map[string]int{"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}})
	fmt.Fprint(w, "data: [DONE]\n\n")
	if flusher != nil {
		flusher.Flush()
	}
}
