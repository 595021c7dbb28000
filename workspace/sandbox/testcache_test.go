package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// countedTest is a test that counts its runs in ../../runs (outside its
// module, so not one of its inputs), reads testdata/in.txt and $MODE, and
// fails when either says "fail".
const countedTest = `package p

import (
	"os"
	"strings"
	"testing"
)

func TestP(t *testing.T) {
	f, err := os.OpenFile("../../runs", os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("run\n")
	f.Close()
	in, err := os.ReadFile("testdata/in.txt")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("in %s mode %s", in, os.Getenv("MODE"))
	if strings.Contains(string(in), "fail") || os.Getenv("MODE") == "fail" {
		t.Fatal("told to fail")
	}
}
`

// gateFixture is a module m in a fixture's worktree, and the spec of a
// gate over it with a kept gate cache.
func gateFixture(t *testing.T) (*fixture, Spec) {
	t.Helper()
	if landlockVersion() < 1 {
		t.Fatal("this kernel has no Landlock")
	}
	f := userCacheFixture(t)
	mustWrite(t, filepath.Join(f.dir, "m", "go.mod"), "module example.com/m\n\ngo 1.21\n")
	own := filepath.Join(t.TempDir(), "caches")
	return f, Spec{Command: "cd m && go test -json -vet=off ./...", Caches: f.sb.DefaultCaches(), OwnCaches: own,
		BuildCache: filepath.Join(own, "go-build"), Gate: true, GateCache: filepath.Join(t.TempDir(), "gate", "go-build"),
		Timeout: 5 * time.Minute}
}

// writeOld writes p, dated well before now: go keeps no result of a run
// that read a file changed within two seconds.
func writeOld(t *testing.T, p, content string, at time.Time) {
	t.Helper()
	mustWrite(t, p, content)
	if err := os.Chtimes(p, at, at); err != nil {
		t.Fatal(err)
	}
}

// TestGateKeepsTestResults: a gate run again over an unchanged package
// replays its passing result without running its test binary; a change
// of a file or a variable the test read runs it again; a failing test,
// or a run go would not cache (-count=1), is run every time.
func TestGateKeepsTestResults(t *testing.T) {
	f, spec := gateFixture(t)
	mustWrite(t, filepath.Join(f.dir, "m", "p", "p_test.go"), countedTest)
	in := filepath.Join(f.dir, "m", "p", "testdata", "in.txt")
	first, second := time.Now().Add(-time.Hour).Truncate(time.Second), time.Now().Add(-2*time.Hour).Truncate(time.Second)
	writeOld(t, in, "one", first)
	runs := func() int {
		data, _ := os.ReadFile(filepath.Join(f.dir, "runs"))
		return strings.Count(string(data), "run\n")
	}
	for i, step := range []struct {
		name     string
		change   func(*Spec)
		runs     int
		fail     bool
		wantText string // in the output, replayed or not
	}{
		{"first", nil, 1, false, "in one mode"},
		{"unchanged", nil, 1, false, "in one mode"},
		{"unchanged again", nil, 1, false, "in one mode"},
		{"testdata changed", func(*Spec) { writeOld(t, in, "two", second) }, 2, false, "in two mode"},
		{"testdata same size and time, other contents", func(*Spec) { writeOld(t, in, "owt", second) }, 3, false, "in owt mode"},
		{"unchanged after it", nil, 3, false, "in owt mode"},
		{"variable changed", func(s *Spec) { s.Env = []string{"MODE=x"} }, 4, false, "in owt mode x"},
		{"unchanged after it", nil, 4, false, "in owt mode x"},
		{"count=1", func(s *Spec) { s.Command = strings.Replace(s.Command, "-json", "-json -count=1", 1) }, 5, false, "in owt mode x"},
		{"failing", func(s *Spec) {
			s.Command = strings.Replace(s.Command, " -count=1", "", 1)
			s.Env = []string{"MODE=fail"}
		}, 6, true, "told to fail"},
		{"failing again", nil, 7, true, "told to fail"},
		{"failing testdata", func(s *Spec) { s.Env = nil; writeOld(t, in, "fail", first) }, 8, true, "told to fail"},
		{"failing testdata again", nil, 9, true, "told to fail"},
		{"back to the first", func(*Spec) { writeOld(t, in, "one", first) }, 9, false, "in one mode"},
		{"file too new", func(*Spec) { mustWrite(t, in, "new") }, 10, false, "in new mode"},
	} {
		if step.change != nil {
			step.change(&spec)
		}
		res := f.run(t, spec)
		failed := res.ExitCode != 0 || strings.Contains(res.Stdout, `"Action":"fail"`)
		if got := runs(); got != step.runs || failed != step.fail || !strings.Contains(res.Stdout, step.wantText) {
			t.Fatalf("%d %s: %d runs (want %d), failed %v (want %v), %q in the output:\n%s\n%s", i, step.name, got, step.runs, failed, step.fail, step.wantText, res.Stdout, res.Stderr)
		}
		if !step.fail && !strings.Contains(res.Stdout, `"Action":"pass","Package":"example.com/m/p","Elapsed"`) {
			t.Fatalf("%d %s: go test does not report the package passed:\n%s", i, step.name, res.Stdout)
		}
	}
	// The results are in the gates' cache, and no agent command sees them.
	if ents, err := os.ReadDir(filepath.Join(spec.GateCache, testResultsDir)); err != nil || len(ents) == 0 {
		t.Errorf("no test results kept in the gates' cache: %v", err)
	}
	agent := f.run(t, Spec{Command: "ls /run/autarch-sandbox/gate-cache/" + testResultsDir + " " + filepath.Join(spec.GateCache, testResultsDir), OwnCaches: spec.OwnCaches, BuildCache: spec.BuildCache})
	if agent.ExitCode == 0 {
		t.Errorf("an agent's command sees the gates' test results: %s", agent.Stdout)
	}
}

// plantingTest is a test an agent writes to forge the gates' test
// results from the test binary a gate runs: it tries to overwrite,
// truncate, rename and remove every entry kept, to add entries and
// folders, under the gates' cache as a gate command sees it and as the
// host does ($HOST_RESULTS); it says which tries worked.
const plantingTest = `package q

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestQ(t *testing.T) {
	try := func(what string, err error) {
		if err != nil {
			t.Logf("PLANT %s refused", what)
		} else {
			t.Logf("PLANT %s written", what)
		}
	}
	for _, dir := range []string{"/run/autarch-sandbox/gate-cache/autarch-test-results", os.Getenv("HOST_RESULTS")} {
		if _, err := os.Stat(dir); err != nil {
			t.Logf("PLANT %s not seen", dir)
			continue
		}
		var files []string
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				files = append(files, p)
			}
			return nil
		})
		if len(files) == 0 {
			t.Logf("PLANT nothing seen in %s", dir)
		}
		for _, p := range files {
			try("overwrite", os.WriteFile(p, []byte("autarch-test v1 out 3 x\nok\n"), 0o600))
			try("truncate", os.Truncate(p, 0))
			try("rename", os.Rename(p, p+".x"))
			try("link", os.Link(p, filepath.Join(dir, "linked")))
			try("remove", os.Remove(p))
		}
		try("create", os.WriteFile(filepath.Join(dir, "00", "planted-out"), []byte("x"), 0o600))
		try("create top", os.WriteFile(filepath.Join(dir, "planted"), []byte("x"), 0o600))
		try("mkdir", os.Mkdir(filepath.Join(dir, "zz"), 0o700))
		try("symlink", os.Symlink("/tmp", filepath.Join(dir, "sym")))
		try("chmod", os.Chmod(dir, 0))
		try("chtimes", os.Chtimes(dir, time.Time{}, time.Time{}))
		try("remove all", os.RemoveAll(dir))
	}
}
`

// TestGateTestBinaryCannotPlantTestResults: the test binary of a gate
// can change nothing of the test results the gates keep, by any path.
func TestGateTestBinaryCannotPlantTestResults(t *testing.T) {
	f, spec := gateFixture(t)
	mustWrite(t, filepath.Join(f.dir, "m", "p", "p_test.go"), countedTest)
	writeOld(t, filepath.Join(f.dir, "m", "p", "testdata", "in.txt"), "one", time.Now().Add(-time.Hour))
	results := filepath.Join(spec.GateCache, testResultsDir)
	spec.Env = []string{"HOST_RESULTS=" + results}
	if res := f.run(t, spec); res.ExitCode != 0 {
		t.Fatalf("the first gate: exit %d: %s %s", res.ExitCode, res.Stdout, res.Stderr)
	}
	kept := map[string]string{}
	snapshot := func() map[string]string {
		m := map[string]string{}
		filepath.WalkDir(results, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				data, _ := os.ReadFile(p)
				m[p] = string(data)
			}
			return nil
		})
		return m
	}
	kept = snapshot()
	if len(kept) == 0 {
		t.Fatal("the first gate kept no test result")
	}
	mustWrite(t, filepath.Join(f.dir, "m", "q", "q_test.go"), plantingTest)
	res := f.run(t, spec)
	if res.ExitCode != 0 {
		t.Fatalf("the second gate: exit %d: %s %s", res.ExitCode, res.Stdout, res.Stderr)
	}
	// Landlock has no right for a file's mode or times: those tries work,
	// and change no answer (a folder made unreadable is made ours again).
	written := strings.NewReplacer("PLANT chmod written", "", "PLANT chtimes written", "").Replace(res.Stdout)
	if strings.Contains(written, "written") || !strings.Contains(res.Stdout, "PLANT overwrite refused") || !strings.Contains(res.Stdout, "PLANT create refused") {
		t.Errorf("the test binary wrote the gates' test results:\n%s", res.Stdout)
	}
	now := snapshot()
	for p, data := range kept {
		if now[p] != data {
			t.Errorf("%s changed", p)
		}
	}
	for p := range now {
		if _, ok := kept[p]; !ok && (strings.Contains(p, "planted") || strings.HasSuffix(p, ".x") || strings.Contains(p, "linked")) {
			t.Errorf("%s planted", p)
		}
	}
	// The results still work: p is replayed in a third gate.
	runs := func() string { data, _ := os.ReadFile(filepath.Join(f.dir, "runs")); return string(data) }
	before := runs()
	if res := f.run(t, spec); res.ExitCode != 0 || runs() != before {
		t.Errorf("after the attack p's result is not replayed: exit %d, runs %q then %q", res.ExitCode, before, runs())
	}
}

func TestCacheableTestArgs(t *testing.T) {
	for _, tc := range []struct {
		args []string
		key  []string
		ok   bool
	}{
		{[]string{"-test.paniconexit0", "-test.timeout=10m0s", "-test.v=test2json"}, []string{"-test.paniconexit0", "-test.timeout=10m0s", "-test.v=test2json"}, true},
		{[]string{"-test.run=^TestX$", "-test.short=true", "-test.count=1"}, nil, false},
		{[]string{"-test.coverprofile=c.out"}, nil, false}, // go keeps the profile with the result; this cache does not
		{[]string{"-test.testlogfile=/tmp/x"}, nil, false},
		{[]string{"-test.v"}, nil, false}, // as go: a flag without = is not cached
		{[]string{"-test.run=X", "extra"}, nil, false},
		{nil, nil, true},
	} {
		key, ok := cacheableTestArgs(tc.args)
		if ok != tc.ok || strings.Join(key, " ") != strings.Join(tc.key, " ") {
			t.Errorf("%q: %q %v, want %q %v", tc.args, key, ok, tc.key, tc.ok)
		}
	}
}

// testResultsFixture is a module with a file a test reads, a fake test
// binary, and a results folder.
func testResultsFixture(t *testing.T) (testResults, testKey, string) {
	t.Helper()
	root := t.TempDir()
	mustWrite(t, filepath.Join(root, "go.mod"), "module m\n")
	in := filepath.Join(root, "p", "testdata", "in.txt")
	writeOld(t, in, "one", time.Now().Add(-time.Hour))
	bin := filepath.Join(t.TempDir(), "p.test")
	mustWrite(t, bin, "binary")
	k, ok := newTestKey([]string{bin, "-test.paniconexit0"}, filepath.Join(root, "p"), []string{"A=1"}, "{}")
	if !ok {
		t.Fatal("not cacheable")
	}
	return testResults{dir: filepath.Join(t.TempDir(), "results"), limit: testResultsLimit, now: time.Now}, k, in
}

// TestTestResultsInputs: a kept result is found while what its log names
// is unchanged, and missed when a variable, a file's contents or a
// folder's listing changed; files outside the module are not inputs; a
// file too new, a malformed log or one that names a FIFO keep nothing
// (and a FIFO blocks nothing).
func TestTestResultsInputs(t *testing.T) {
	c, k, in := testResultsFixture(t)
	log := []byte("# test log\ngetenv A\nopen testdata/in.txt\nstat testdata\nopen /etc/hostname\nopen testdata\n")
	if err := c.store(k, log, []byte("PASS\n")); err != nil {
		t.Fatal(err)
	}
	if out, ok := c.lookup(k); !ok || string(out) != "PASS\n" {
		t.Fatalf("lookup: %q %v", out, ok)
	}
	for _, tc := range []struct {
		name   string
		change func(k *testKey)
	}{
		{"variable", func(k *testKey) { k.env = []string{"A=2"} }},
		{"contents", func(*testKey) {
			fi, _ := os.Stat(in)
			writeOld(t, in, "two", fi.ModTime())
		}},
		{"listing", func(*testKey) {
			writeOld(t, filepath.Join(filepath.Dir(in), "new.txt"), "", time.Now().Add(-time.Hour))
		}},
	} {
		k := k
		tc.change(&k)
		if _, ok := c.lookup(k); ok {
			t.Errorf("%s changed: the result is replayed", tc.name)
		}
	}
	// Outside the module: not an input (as go).
	c2, k2, _ := testResultsFixture(t)
	outside := filepath.Join(t.TempDir(), "outside")
	writeOld(t, outside, "x", time.Now().Add(-time.Hour))
	if err := c2.store(k2, []byte("# test log\nopen "+outside+"\n"), []byte("ok\n")); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, outside, "changed")
	if _, ok := c2.lookup(k2); !ok {
		t.Errorf("a file outside the module is an input")
	}
	// Too new, malformed, a FIFO: nothing kept.
	c3, k3, in3 := testResultsFixture(t)
	fifo := filepath.Join(filepath.Dir(in3), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(filepath.Dir(in3), "new.txt"), "new")
	for _, log := range []string{"# test log\nopen testdata/new.txt\n", "# test log\nopen testdata/in.txt", "no magic\n", "# test log\nwrite x\n", "# test log\nopenx\n"} {
		if err := c3.store(k3, []byte(log), []byte("ok\n")); err == nil {
			t.Errorf("%q: kept", log)
		}
	}
	done := make(chan error, 1)
	go func() { done <- c3.store(k3, []byte("# test log\nopen testdata/fifo\n"), []byte("ok\n")) }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("a FIFO: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("hashing a FIFO blocks")
	}
}

// TestTestResultsDamagedEntries: an entry cut short, changed or of
// another kind is a miss, never a wrong answer.
func TestTestResultsDamagedEntries(t *testing.T) {
	c, k, _ := testResultsFixture(t)
	log := []byte("# test log\nopen testdata/in.txt\n")
	out := []byte("=== RUN TestP\n--- PASS: TestP\nPASS\n")
	if err := c.store(k, log, out); err != nil {
		t.Fatal(err)
	}
	in, err := testInputsID(log, k, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	p := c.file(outputID(k.id, in), "out")
	good, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, data string }{
		{"truncated", string(good[:len(good)-5])},
		{"empty", ""},
		{"body changed", strings.Replace(string(good), "PASS: TestP", "PASS: TestQ", 1)},
		{"grown", string(good) + "ok\n"},
		{"other kind", strings.Replace(string(good), " out ", " log ", 1)},
		{"header only", strings.SplitAfter(string(good), "\n")[0]},
	} {
		if err := os.WriteFile(p, []byte(tc.data), 0o600); err != nil {
			t.Fatal(err)
		}
		if got, ok := c.lookup(k); ok {
			t.Errorf("%s: replayed %q", tc.name, got)
		}
	}
	if err := os.WriteFile(p, good, 0o600); err != nil {
		t.Fatal(err)
	}
	if got, ok := c.lookup(k); !ok || string(got) != string(out) {
		t.Errorf("restored: %q %v", got, ok)
	}
}

// TestTestResultsConcurrentAndTrimmed: wrappers storing and looking up
// the same and other keys at once see whole entries or none; past the
// limit the least recently used are removed down to three quarters.
func TestTestResultsConcurrentAndTrimmed(t *testing.T) {
	c, k, _ := testResultsFixture(t)
	log := []byte("# test log\nopen testdata/in.txt\n")
	out := []byte(strings.Repeat("output line\n", 1000))
	errs := make(chan error, 16)
	for i := range 16 {
		go func() {
			k := k
			if i%2 == 1 {
				k.id[0] ^= byte(i)
			}
			for range 20 {
				if err := c.store(k, log, out); err != nil {
					errs <- err
					return
				}
				if got, ok := c.lookup(k); ok && string(got) != string(out) {
					errs <- fmt.Errorf("a partial entry: %d bytes", len(got))
					return
				}
			}
			errs <- nil
		}()
	}
	for range 16 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if got, ok := c.lookup(k); !ok || string(got) != string(out) {
		t.Fatalf("after: %d bytes %v", len(got), ok)
	}
	// Trimming: 40 entries of ~12 KiB, the limit at 20 entries' worth.
	c.limit = 20 * int64(len(out))
	for i := range 40 {
		k := k
		k.id[1] ^= byte(i + 1)
		if err := c.write(k.id, "out", out); err != nil {
			t.Fatal(err)
		}
		at := time.Now().Add(-time.Duration(40-i) * time.Minute)
		if err := os.Chtimes(c.file(k.id, "out"), at, at); err != nil {
			t.Fatal(err)
		}
	}
	os.Remove(filepath.Join(c.dir, "trim.txt"))
	c.trim()
	var total int64
	filepath.WalkDir(c.dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && d.Name() != "trim.txt" {
			fi, _ := d.Info()
			total += fi.Size()
		}
		return nil
	})
	if total > c.limit/4*3 {
		t.Errorf("after trimming: %d bytes, limit %d", total, c.limit)
	}
	if _, ok := c.lookup(k); !ok {
		t.Errorf("the most recently used entry was trimmed")
	}
}
