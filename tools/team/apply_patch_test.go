package team

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/tools"
)

const base10 = "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n"

// manyFiles is a patch creating n files of lines lines each.
func manyFiles(n, lines int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "--- /dev/null\n+++ b/new%d.txt\n@@ -0,0 +1,%d @@\n", i, lines)
		for j := range lines {
			fmt.Fprintf(&b, "+line %d\n", j)
		}
	}
	return b.String()
}

func TestApplyPatch(t *testing.T) {
	files := map[string]string{"a.txt": base10, "b.txt": base10, "gone.txt": "bye\n", ".env": "TOKEN=x\n", "src/lib.go": "package src\n"}
	tests := []struct {
		name    string
		mode    Mode
		args    map[string]any
		code    string
		want    map[string]any
		after   map[string]string // file → content ("" absent)
		message string
		// guard: the engine's guardrails refuse it before the tool runs
		// (the tool alone answers code).
		guard bool
	}{
		{name: "multi-file: modify, create, delete", mode: Mechanic, args: map[string]any{"patch": "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n" +
			"--- /dev/null\n+++ b/docs/new.md\n@@ -0,0 +1,2 @@\n+# New\n+text\n" +
			"--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n"},
			want:  map[string]any{"applied": true, "filesModified": 3, "linesChanged": 5},
			after: map[string]string{"a.txt": strings.Replace(base10, "two", "TWO", 1), "docs/new.md": "# New\ntext\n", "gone.txt": ""}},
		{name: "traditional headers, moved hunk", mode: Mechanic, args: map[string]any{"patch": "--- a/b.txt\n+++ b/b.txt\n@@ -5,2 +5,2 @@\n-seven\n+SEVEN\n eight\n"},
			want: map[string]any{"applied": true, "filesModified": 1, "linesChanged": 2}, after: map[string]string{"b.txt": strings.Replace(base10, "seven", "SEVEN", 1)}},
		{name: "dry run changes nothing", mode: Mechanic, args: map[string]any{"dryRun": true, "patch": "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+ONE\n"},
			want: map[string]any{"applied": false, "dryRun": true, "filesModified": 1, "linesChanged": 2}, after: map[string]string{"a.txt": base10}},
		{name: "rename with a change", mode: Genius, args: map[string]any{"patch": "diff --git a/b.txt b/c.txt\nsimilarity index 90%\nrename from b.txt\nrename to c.txt\n--- a/b.txt\n+++ b/c.txt\n@@ -1 +1 @@\n-one\n+uno\n"},
			want: map[string]any{"applied": true, "filesModified": 2, "linesChanged": 2}, after: map[string]string{"b.txt": "", "c.txt": strings.Replace(base10, "one", "uno", 1)}},
		{name: "not a diff", mode: Genius, args: map[string]any{"patch": "please change two to TWO"}, code: CodeInvalidPatch, message: "no hunks found"},
		{name: "empty", mode: Genius, args: map[string]any{"patch": ""}, code: CodeInvalidPatch},
		{name: "hunk miscounts", mode: Genius, args: map[string]any{"patch": "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n"}, code: CodeInvalidPatch, message: "miscounts"},
		{name: "no file headers", mode: Genius, args: map[string]any{"patch": "@@ -1 +1 @@\n-one\n+ONE\n"}, code: CodeInvalidPatch, message: "no file headers"},
		{name: "second file does not apply: nothing written", mode: Genius, args: map[string]any{"patch": "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+ONE\n--- /dev/null\n+++ b/fresh.txt\n@@ -0,0 +1 @@\n+x\n--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-zero\n+ZERO\n"},
			code: CodeApplyError, message: "hunk 1", after: map[string]string{"a.txt": base10, "b.txt": base10, "fresh.txt": ""}},
		{name: "missing file", mode: Genius, args: map[string]any{"patch": "--- a/nope.txt\n+++ b/nope.txt\n@@ -1 +1 @@\n-a\n+b\n"}, code: CodeApplyError, message: "does not exist"},
		{name: "create over an existing file", mode: Genius, args: map[string]any{"patch": "--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1 @@\n+x\n"}, code: CodeApplyError, message: "already exists", after: map[string]string{"a.txt": base10}},
		{name: "git's files", mode: Genius, args: map[string]any{"patch": "--- /dev/null\n+++ b/.git/hooks/pre-commit\n@@ -0,0 +1 @@\n+evil\n"}, code: CodeApplyError, message: ".git", guard: true},
		{name: "nested .git, any case", mode: Genius, args: map[string]any{"patch": "--- /dev/null\n+++ b/sub/.GIT/config\n@@ -0,0 +1 @@\n+evil\n"}, code: CodeApplyError, message: ".git"},
		{name: "outside the worktree", mode: Genius, args: map[string]any{"patch": "--- /dev/null\n+++ b/../../escape.txt\n@@ -0,0 +1 @@\n+x\n"}, code: CodeApplyError, message: "outside"},
		{name: "absolute path outside", mode: Genius, args: map[string]any{"patch": "--- /dev/null\n+++ /tmp/escape.txt\n@@ -0,0 +1 @@\n+x\n"}, code: CodeApplyError},
		{name: "secret file", mode: Genius, args: map[string]any{"patch": "--- a/.env\n+++ b/.env\n@@ -1 +1 @@\n-TOKEN=x\n+TOKEN=y\n"}, code: CodeApplyError, after: map[string]string{".env": "TOKEN=x\n"}},
		{name: "protected configuration", mode: Genius, args: map[string]any{"patch": "--- /dev/null\n+++ b/.autarch/hooks.json\n@@ -0,0 +1 @@\n+{}\n"}, code: CodeApplyError, message: "protected", guard: true},
		{name: "binary", mode: Genius, args: map[string]any{"patch": "diff --git a/img.png b/img.png\nnew file mode 100644\nindex 0000000..1111111\nBinary files /dev/null and b/img.png differ\n"}, code: CodeInvalidPatch, message: "binary"},
		{name: "mechanic: six files", mode: Mechanic, args: map[string]any{"patch": manyFiles(6, 1)}, code: CodeLimitsExceeded, message: "at most 5 files", after: map[string]string{"new0.txt": ""}},
		{name: "mechanic: 201 lines", mode: Mechanic, args: map[string]any{"patch": manyFiles(1, 201)}, code: CodeLimitsExceeded, message: "200 changed lines"},
		{name: "mechanic: at the limits", mode: Mechanic, args: map[string]any{"patch": manyFiles(5, 40)}, want: map[string]any{"applied": true, "filesModified": 5, "linesChanged": 200}},
		{name: "genius: over mechanic's limits", mode: Genius, args: map[string]any{"patch": manyFiles(6, 50)}, want: map[string]any{"applied": true, "filesModified": 6, "linesChanged": 300}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRepo(t, files)
			h := newHarness(t, r.wt, &fakeJob{id: "job1", mode: tt.mode})
			got, res := h.call("apply_patch", tt.args)
			if tt.guard {
				if !res.Failed || !strings.Contains(res.Output, "Guardrail: ") || !strings.Contains(res.Output, tt.message) {
					t.Errorf("the engine's guardrails let it through: %s", res.Output)
				}
				res = applyPatch(h.s, tt.mode, tt.args["patch"].(string), false)
				json.Unmarshal([]byte(res.Output), &got)
			}
			expect(t, got, res, tt.code, tt.want)
			if tt.code != "" {
				expect(t, got, res, tt.code, map[string]any{"applied": false, "filesModified": 0, "linesChanged": 0})
			}
			if tt.message != "" && !strings.Contains(fmt.Sprint(got["error"]), tt.message) {
				t.Errorf("error = %v, want it to mention %q", got["error"], tt.message)
			}
			for f, want := range tt.after {
				data, err := os.ReadFile(filepath.Join(r.wt, f))
				if want == "" && !os.IsNotExist(err) {
					t.Errorf("%s exists (%v): %q", f, err, data)
				} else if want != "" && string(data) != want {
					t.Errorf("%s = %q, want %q", f, data, want)
				}
			}
			if tt.code != "" {
				if st := runGit(t, r.wt, "status", "--porcelain", "--untracked-files=all"); st != "" {
					t.Errorf("a refused patch left changes: %s", st)
				}
			}
		})
	}
}

// TestApplyPatchRollsBack: a write failing midway restores the files
// already written and removes those created.
func TestApplyPatchRollsBack(t *testing.T) {
	r := newRepo(t, map[string]string{"a.txt": base10, "locked/b.txt": base10})
	h := newHarness(t, r.wt, &fakeJob{id: "job1", mode: Genius})
	if err := os.Chmod(filepath.Join(r.wt, "locked"), 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(filepath.Join(r.wt, "locked"), 0o755) })
	if os.Getuid() == 0 {
		t.Skip("root writes into read-only directories")
	}
	got, res := h.call("apply_patch", map[string]any{"patch": "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+ONE\n--- /dev/null\n+++ b/new/c.txt\n@@ -0,0 +1 @@\n+c\n--- a/locked/b.txt\n+++ b/locked/b.txt\n@@ -1 +1 @@\n-one\n+ONE\n"})
	expect(t, got, res, CodeApplyError, nil)
	if st := runGit(t, r.wt, "status", "--porcelain", "--untracked-files=all"); st != "" {
		t.Errorf("rollback left changes: %s", st)
	}
}

// FuzzApplyPatch: any patch, in either mode, never panics; a refused patch
// changes nothing, an applied one reports what it changed.
func FuzzApplyPatch(f *testing.F) {
	f.Add("--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n", false)
	f.Add("--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n+x\n+y\n--- a/a.txt\n+++ /dev/null\n@@ -1,10 +0,0 @@\n-one\n", true)
	f.Add("diff --git a/a.txt b/b.txt\nrename from a.txt\nrename to b.txt\n", false)
	f.Add("--- a/a.txt\n+++ b/a.txt\n@@ -99999999999999999999 +1 @@\n", false)
	f.Add("--- a/../x\n+++ b/../x\n@@ -1 +1 @@\n-a\n+b\n", true)
	dir := f.TempDir()
	s, err := tools.NewSession(tools.SessionConfig{Root: dir, Mode: tools.ModeYolo})
	if err != nil {
		f.Fatal(err)
	}
	defer s.Close()
	f.Fuzz(func(t *testing.T, patch string, mechanic bool) {
		os.RemoveAll(dir)
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, "a.txt"), []byte(base10), 0o644)
		mode := Genius
		if mechanic {
			mode = Mechanic
		}
		res := applyPatch(s, mode, patch, false)
		if res.Failed {
			if data, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(data) != base10 {
				t.Fatalf("a refused patch changed a.txt: %s", res.Output)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 1 {
				t.Fatalf("a refused patch left %d entries: %s", len(entries), res.Output)
			}
		}
	})
}

// TestApplyPatchGuardrails: the engine's guardrails judge each file of a
// multi-file patch (code rules on the patched file, lines per call).
func TestApplyPatchGuardrails(t *testing.T) {
	r := newRepo(t, map[string]string{"a.go": "package a\n", "b.txt": base10,
		".autarch/guardrails": `{"max_lines_changed": 4, "code_rules": [{"pattern": "panic\\(", "message": "no panics", "files": ["*.go"]}]}`})
	g, err := tools.LoadGuardrails(r.wt)
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, r.wt, &fakeJob{id: "j", mode: Genius})
	reg, _ := Registry(h.job, Deps{})
	h.e = tools.NewEngine(reg, nil, slog.New(slog.DiscardHandler)).WithGuardrails(g)
	for _, tt := range []struct{ name, patch, want string }{
		{"code rule", "--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-one\n+ONE\n--- a/a.go\n+++ b/a.go\n@@ -1 +1,2 @@\n package a\n+func f() { panic(1) }\n", "Guardrail: no panics"},
		{"lines per call", "--- a/b.txt\n+++ b/b.txt\n@@ -1,3 +1,3 @@\n-one\n-two\n-three\n+1\n+2\n+3\n", "over the limit of 4"},
		{"protected", "--- /dev/null\n+++ b/.autarch/hooks.json\n@@ -0,0 +1 @@\n+{}\n", "Guardrail: .autarch/hooks.json is protected"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, res := h.call("apply_patch", map[string]any{"patch": tt.patch})
			refusedSaying(t, res, tt.want)
			if st := runGit(t, r.wt, "status", "--porcelain", "--untracked-files=all"); st != "" {
				t.Errorf("a refused patch left changes: %s", st)
			}
		})
	}
	got, res := h.call("apply_patch", map[string]any{"patch": "--- a/a.go\n+++ b/a.go\n@@ -1 +1,2 @@\n package a\n+func f() {}\n"})
	expect(t, got, res, "", map[string]any{"applied": true})
}

// TestApplyPatchSymlinks: a path is judged by where it leads.
func TestApplyPatchSymlinks(t *testing.T) {
	r := newRepo(t, map[string]string{"a.txt": "a\n", ".autarch/config.yaml": "x: 1\n"})
	for link, target := range map[string]string{"cfg": ".autarch", "out": "../.."} {
		if err := os.Symlink(target, filepath.Join(r.wt, link)); err != nil {
			t.Fatal(err)
		}
	}
	h := newHarness(t, r.wt, &fakeJob{id: "j", mode: Genius})
	for _, tt := range []struct{ name, patch, want string }{
		{"into a protected directory", "--- /dev/null\n+++ b/cfg/hooks.json\n@@ -0,0 +1 @@\n+{}\n", "protected"},
		{"out of the worktree", "--- /dev/null\n+++ b/out/escape.txt\n@@ -0,0 +1 @@\n+x\n", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// The engine's guardrails or the tool itself refuse it.
			_, res := h.call("apply_patch", map[string]any{"patch": tt.patch})
			refusedSaying(t, res, tt.want)
			// The tool on its own, without the engine.
			refusedSaying(t, applyPatch(h.s, Genius, tt.patch, false), CodeApplyError)
		})
	}
	if _, err := os.Stat(filepath.Join(r.wt, "..", "..", "escape.txt")); !os.IsNotExist(err) {
		t.Errorf("a file was written outside the worktree: %v", err)
	}
	if _, err := os.Stat(filepath.Join(r.wt, ".autarch", "hooks.json")); !os.IsNotExist(err) {
		t.Errorf("a protected file was written: %v", err)
	}
}
