package git

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/internal/testkit"
)

var update = flag.Bool("update", false, "rewrite golden files")

// diffRepo commits a base on main and a head on branch "topic" covering
// modifications, additions, deletions, a rename, a binary file, a mode
// change, names with spaces and non-ASCII letters, a missing final newline
// and content that looks like diff headers.
func diffRepo(t *testing.T) string {
	dir := filepath.Join(t.TempDir(), "repo")
	gitT(t, t.TempDir(), "init", "-q", "-b", "main", dir)
	lines := func(n int, prefix string) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			b.WriteString(prefix + " " + strconv.Itoa(i) + "\n")
		}
		return b.String()
	}
	writeFile(t, filepath.Join(dir, "a.go"), lines(30, "line"))
	writeFile(t, filepath.Join(dir, "my file.txt"), "one\ntwo\n")
	writeFile(t, filepath.Join(dir, "gone.txt"), "bye\n")
	writeFile(t, filepath.Join(dir, "moved", "from.txt"), lines(20, "keep"))
	writeFile(t, filepath.Join(dir, "run.sh"), "echo hi\n")
	writeFile(t, filepath.Join(dir, "tricky.txt"), "plain\n")
	gitT(t, dir, "add", ".")
	gitT(t, dir, "commit", "-q", "-m", "base")
	gitT(t, dir, "checkout", "-q", "-b", "topic")
	a := strings.Replace(lines(30, "line"), "line 5\n", "line 5 changed\n", 1)
	a = strings.Replace(a, "line 25\n", "line 25\ninserted after 25\n", 1)
	writeFile(t, filepath.Join(dir, "a.go"), a)
	writeFile(t, filepath.Join(dir, "my file.txt"), "one\ntwo\nthree")
	writeFile(t, filepath.Join(dir, "ünï.txt"), "new\n")
	os.Remove(filepath.Join(dir, "gone.txt"))
	os.Remove(filepath.Join(dir, "moved", "from.txt"))
	writeFile(t, filepath.Join(dir, "moved", "to.txt"), strings.Replace(lines(20, "keep"), "keep 10\n", "kept 10\n", 1))
	os.Chmod(filepath.Join(dir, "run.sh"), 0o755)
	os.WriteFile(filepath.Join(dir, "logo.bin"), []byte{0, 1, 2, 0, 255}, 0o644)
	writeFile(t, filepath.Join(dir, "tricky.txt"), "plain\ndiff --git a/x b/x\n@@ -1 +1 @@\n--- a/y\n+++ b/y\n")
	gitT(t, dir, "add", "-A")
	gitT(t, dir, "commit", "-q", "-m", "topic")
	// The base moves on after the fork: the diff must not show it.
	gitT(t, dir, "checkout", "-q", "main")
	writeFile(t, filepath.Join(dir, "later.txt"), "on main after the fork\n")
	gitT(t, dir, "add", ".")
	gitT(t, dir, "commit", "-q", "-m", "later")
	return dir
}

func TestDiffGolden(t *testing.T) {
	ctx := context.Background()
	dir := diffRepo(t)
	r := openRepo(t, dir)
	d, err := r.Diff(ctx, "main", "topic")
	if err != nil {
		t.Fatal(err)
	}
	if d.Base != gitT(t, dir, "merge-base", "main", "topic") || d.Head != gitT(t, dir, "rev-parse", "topic") {
		t.Fatalf("sides %s..%s", d.Base, d.Head)
	}
	if strings.Contains(d.Patch, "later.txt") {
		t.Fatal("the diff shows a change made on the base after the fork")
	}
	if want := gitT(t, dir, "diff", "main...topic"); strings.TrimRight(d.Patch, "\n") != want {
		t.Fatalf("patch differs from git diff main...topic:\n%s\n---\n%s", d.Patch, want)
	}
	var joined strings.Builder
	for _, f := range d.Files {
		joined.WriteString(f.Patch)
	}
	if joined.String() != d.Patch {
		t.Fatal("per-file patches do not add up to the whole patch")
	}
	got, err := json.MarshalIndent(struct {
		Files []FileDiff `json:"files"`
		Stats Stats      `json:"stats"`
	}{d.Files, d.Stats}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	testkit.Golden(t, filepath.Join("testdata", "diff.golden.json"), append(got, '\n'), *update)

	// Anchoring review comments to the new side.
	a, ok := d.File("a.go")
	if !ok {
		t.Fatal("a.go missing")
	}
	if l, ok := a.NewLine(5); !ok || l.Kind != LineAdded || l.Text != "line 5 changed" {
		t.Fatalf("a.go:5 = %+v, %v", l, ok)
	}
	if l, ok := a.NewLine(26); !ok || l.Kind != LineAdded || l.Text != "inserted after 25" {
		t.Fatalf("a.go:26 = %+v, %v", l, ok)
	}
	if l, ok := a.NewLine(27); !ok || l.Kind != LineContext || l.Old != 26 {
		t.Fatalf("a.go:27 = %+v, %v", l, ok)
	}
	if _, ok := a.NewLine(15); ok {
		t.Fatal("a.go:15 is outside every hunk")
	}
	if !a.Touches(1, 3) || a.Touches(12, 18) || !a.Touches(20, 40) {
		t.Fatal("Touches disagrees with the hunks")
	}
}

func TestDiffWorkTreeAndWorkflow(t *testing.T) {
	ctx := context.Background()
	dir, _ := userRepo(t)
	r := openRepo(t, dir)
	before := snapshot(t, dir)
	d, err := r.Diff(ctx, "main~1", "")
	if err != nil {
		t.Fatal(err)
	}
	sameSnapshot(t, "work tree diff", before, snapshot(t, dir))
	var paths []string
	for _, f := range d.Files {
		paths = append(paths, f.Path)
	}
	if strings.Join(paths, ",") != "README.md,lib/lib.go,main.go" || d.Head != "" {
		t.Fatalf("work tree diff files = %v", paths)
	}
	wf, err := r.CreateWorkflow(ctx, "d", "main")
	if err != nil {
		t.Fatal(err)
	}
	wd, err := wf.Diff(ctx)
	if err != nil || len(wd.Files) != 0 {
		t.Fatalf("fresh workflow diff = %+v, %v", wd, err)
	}
	wf.StartPulse(ctx, "p")
	writeFile(t, filepath.Join(wf.Worktree, "new.go"), "package main\n")
	if _, err := wf.CompletePulse(ctx, "p", "feat: new file"); err != nil {
		t.Fatal(err)
	}
	wd, err = wf.Diff(ctx)
	if err != nil || len(wd.Files) != 1 || wd.Files[0].Status != FileAdded || wd.Stats.Additions != 1 {
		t.Fatalf("workflow diff = %+v, %v", wd, err)
	}
}

func TestParseFilePatchErrors(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"bad header", "diff --git a/x b/x\n@@ -1 +1 @\n", "malformed hunk header"},
		{"bad range", "diff --git a/x b/x\n@@ -a +1 @@\n", "bad range"},
		{"truncated", "diff --git a/x b/x\n@@ -1,2 +1,2 @@\n a\n", "truncated"},
		{"too long", "diff --git a/x b/x\n@@ -1 +1 @@\n-a\n+b\n+c\n", "unexpected line after hunk"},
		{"bad line", "diff --git a/x b/x\n@@ -1 +1 @@\n?a\n", "unexpected line in hunk"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseFilePatch(tt.in)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

// FuzzParsePatch: the patch and numstat parsers never panic, sections
// always add up to the input, and parsed line numbers stay inside their
// hunk.
func FuzzParsePatch(f *testing.F) {
	f.Add("diff --git a/x b/x\nindex 1..2 100644\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@ func\n a\n-b\n+c\n\\ No newline at end of file\n", "1\t1\tx\x00")
	f.Add("diff --git a/x b/y\nsimilarity index 90%\nrename from x\nrename to y\n", "0\t0\t\x00x\x00y\x00")
	f.Add("diff --git a/b b/b\nBinary files a/b and b/b differ\n", "-\t-\tb\x00")
	f.Fuzz(func(t *testing.T, patch, num string) {
		parseNumstat(num)
		secs := splitPatch(patch)
		if strings.Join(secs, "") != patch[len(patch)-len(strings.Join(secs, "")):] {
			t.Fatal("sections do not cover the patch's tail")
		}
		for _, s := range secs {
			fd, err := parseFilePatch(s)
			if err != nil {
				continue
			}
			for _, h := range fd.Hunks {
				for _, l := range h.Lines {
					if l.New != 0 && (l.New < h.NewStart || l.New >= h.NewStart+h.NewLines) {
						t.Fatalf("line %+v outside hunk %+v", l, h)
					}
				}
			}
		}
	})
}

func TestFileAt(t *testing.T) {
	ctx := context.Background()
	dir, _ := userRepo(t)
	r := openRepo(t, dir)
	got, err := r.FileAt(ctx, "HEAD", "old.txt")
	if err != nil || string(got) != "to be removed\n" {
		t.Fatalf("FileAt = %q, %v", got, err)
	}
	if _, err := r.FileAt(ctx, "HEAD", "missing.txt"); !errors.Is(err, ErrNoFile) {
		t.Errorf("missing file: %v, want ErrNoFile", err)
	}
	for _, bad := range []string{"", "/etc/passwd", "--output=x"} {
		if _, err := r.FileAt(ctx, "HEAD", bad); err == nil || errors.Is(err, ErrNoFile) {
			t.Errorf("FileAt(%q) = %v, want a usage error", bad, err)
		}
	}
}

func TestChangedPaths(t *testing.T) {
	ctx := context.Background()
	dir, _ := userRepo(t)
	r := openRepo(t, dir)
	// userRepo leaves README.md staged, main.go modified and notes.txt
	// untracked; debug.log is ignored.
	got, err := r.ChangedPaths(ctx, dir, "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"README.md", "main.go", "notes.txt"}; !slices.Equal(got, want) {
		t.Errorf("ChangedPaths(HEAD) = %q, want %q", got, want)
	}
	got, err = r.ChangedPaths(ctx, dir, "HEAD~1")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(got, "lib/lib.go") {
		t.Errorf("ChangedPaths(HEAD~1) = %q, want lib/lib.go among them", got)
	}
}

// TestParseFilePatchLineEndings: a CRLF file's lines show without their CR,
// an empty CRLF line (or a final lone CR) is an empty context line, and a
// final line without a newline still counts.
func TestParseFilePatchLineEndings(t *testing.T) {
	tests := []struct {
		name, in string
		want     []Line
	}{
		{"crlf", "diff --git a/x b/x\n@@ -1,3 +1,3 @@\n a\r\n\r\n-b\r\n+c\r\n", []Line{
			{Kind: LineContext, Old: 1, New: 1, Text: "a"}, {Kind: LineContext, Old: 2, New: 2, Text: ""},
			{Kind: LineDeleted, Old: 3, Text: "b"}, {Kind: LineAdded, New: 3, Text: "c"}}},
		{"final lone CR", "diff --git a/x b/x\n@@ -1 +1 @@\n\r", []Line{{Kind: LineContext, Old: 1, New: 1, Text: ""}}},
		{"no final newline", "diff --git a/x b/x\n@@ -1 +1 @@\n-a\n+b", []Line{
			{Kind: LineDeleted, Old: 1, Text: "a"}, {Kind: LineAdded, New: 1, Text: "b"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := parseFilePatch(tt.in)
			if err != nil || len(f.Hunks) != 1 || !reflect.DeepEqual(f.Hunks[0].Lines, tt.want) {
				t.Fatalf("parseFilePatch = %+v, %v\nwant lines %+v", f.Hunks, err, tt.want)
			}
		})
	}
}
