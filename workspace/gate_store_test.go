package workspace

import (
	"os"
	"path/filepath"
	"testing"
)

// TestVerdictsOutliveTheGate: verdicts saved by one gate are known to the
// next over the same state directory, for the same file versions only, and
// only under the same rules and sensitive paths.
func TestVerdictsOutliveTheGate(t *testing.T) {
	root, dir, state, files := verdictTree(t)
	stamp := func(rel string) ([]byte, Stamp) {
		data, st, err := root.ReadFileStamp(rel, MaxGrepFileSize)
		if err != nil || st == (Stamp{}) {
			t.Fatalf("%s: %v (stamp %v)", rel, err, st)
		}
		return data, st
	}
	first := DefaultGate()
	first.PersistVerdicts(state)
	want := map[string]string{}
	for name := range files {
		data, st := stamp(name)
		want[name], _ = first.FileBlockedStamp(name, data, st)
	}
	if want["leaky.txt"] == "" || want["clean.go"] != "" {
		t.Fatalf("verdicts %q", want)
	}
	if err := first.SaveVerdicts(); err != nil {
		t.Fatal(err)
	}

	next := DefaultGate()
	next.PersistVerdicts(state)
	for name := range files {
		_, st := stamp(name)
		reason, blocked, known := next.KnownVerdict(name, st)
		if !known || reason != want[name] || blocked != (want[name] != "") {
			t.Errorf("%s: the next gate knows (%q, %v, known %v), want %q", name, reason, blocked, known, want[name])
		}
	}
	// A new version of the file is decided afresh.
	if err := os.WriteFile(filepath.Join(dir, "clean.go"), []byte("package main\n\nvar k = \""+fake("ghp_", "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5")+"\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	data, st := stamp("clean.go")
	if _, _, known := next.KnownVerdict("clean.go", st); known {
		t.Error("a rewritten file's verdict is known before its content was scanned")
	}
	if _, blocked := next.FileBlockedStamp("clean.go", data, st); !blocked {
		t.Error("the rewritten file with a token is not blocked")
	}
	// Another gate (more sensitive paths) does not take these verdicts.
	other, err := NewGate("**/*.txt")
	if err != nil {
		t.Fatal(err)
	}
	other.PersistVerdicts(state)
	_, st = stamp("leaky.txt")
	other.PathBlocked("x") // no load yet
	if _, _, known := other.KnownVerdict("notes/leaky.md", st); known {
		t.Error("a gate with other sensitive paths took the saved verdicts")
	}
	// A damaged store is ignored and replaced.
	if err := os.WriteFile(filepath.Join(state, verdictFile), []byte("garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	third := DefaultGate()
	third.PersistVerdicts(state)
	if _, _, known := third.KnownVerdict("clean.go", st); known {
		t.Error("a damaged store gave a verdict")
	}
}

// verdictTree is a root (at dir) of the files named in files, a clean
// one (clean.go) and one holding a token (leaky.txt), and a state
// directory for persisted verdicts.
func verdictTree(t *testing.T) (root *Root, dir, state string, files map[string]string) {
	t.Helper()
	dir, state = t.TempDir(), t.TempDir()
	files = map[string]string{
		"clean.go":  "package main\n\nfunc main() {}\n",
		"leaky.txt": "token = " + fake("ghp_", "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"),
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return root, dir, state, files
}
