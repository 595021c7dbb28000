package tools

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/autarch-dev/autarch/internal/testkit"
	"github.com/autarch-dev/autarch/workspace"
)

// robustHarness is a pulsing session with every tool (find_files too) over
// a workspace holding planted FIFOs, devices, huge files and symlinks that
// lead outside. outside is a directory next to the workspace.
func robustHarness(t *testing.T) (h *harness, outside string) {
	t.Helper()
	base := t.TempDir()
	outside = filepath.Join(base, "outside")
	dir := filepath.Join(base, "ws")
	writeFiles(t, outside, map[string]string{"OUTSIDE-NAME.txt": "OUTSIDE CONTENT\n", "deep/OUTSIDE-DEEP.go": "package deep\n"})
	lines := make([]string, 0, 1000)
	for i := 1; i <= 1000; i++ {
		lines = append(lines, "line "+strings.Repeat("x", i%7))
	}
	writeFiles(t, dir, map[string]string{
		"main.go":            "package main\n",
		"sub/keep.go":        "package sub\n",
		"long.txt":           strings.Join(lines, "\n") + "\n",
		"late-secret.txt":    strings.Repeat("plain line\n", 899) + "API_TOKEN=abcdefghijklmnopqrstuvwxyz\n",
		"grep-target.txt":    "needle here\n",
		"pipes/readme.md":    "pipes\n",
		"dirflip/inside.txt": "inside\n",
	})
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(syscall.Mkfifo(filepath.Join(dir, "fifo.go"), 0o644))
	must(syscall.Mkfifo(filepath.Join(dir, "pipes", "needle.txt"), 0o644))
	must(os.Symlink(outside, filepath.Join(dir, "link")))
	testkit.PlantEndlessFiles(t, dir) // zero, zerodev (where allowed), sparse.img, huge.log
	h = newHarness(t, "pulsing", SessionConfig{Root: dir, Workflow: true})
	reg, err := All(Deps{})
	if err != nil {
		t.Fatal(err)
	}
	h.e = NewEngine(reg, nil, slog.New(slog.DiscardHandler))
	return h, outside
}

// callPromptly is h.call that fails the test when the tool does not return
// within seconds (blocked on a FIFO, reading a device or 20 GB).
func callPromptly(t *testing.T, h *harness, tool string, args map[string]any) Result {
	t.Helper()
	done := make(chan Result, 1)
	go func() { done <- h.call(tool, args) }()
	select {
	case res := <-done:
		return res
	case <-time.After(10 * time.Second):
		t.Fatalf("%s %v did not return within 10s", tool, args)
		return Result{}
	}
}

func TestToolsRefuseWhatCannotBeRead(t *testing.T) {
	h, _ := robustHarness(t)
	h.call("read_file", map[string]any{"path": "main.go"})
	_, devErr := os.Lstat(filepath.Join(h.dir, "zerodev"))
	noDevice := map[string]bool{"read device": devErr != nil, "write device": devErr != nil}
	tests := []callCase{
		{"read fifo", "read_file", map[string]any{"path": "fifo.go"}, "fifo.go is a named pipe (FIFO), not a regular file; only regular files can be read", true},
		{"read fifo range", "read_file", map[string]any{"path": "fifo.go", "startLine": 1, "endLine": 1}, "named pipe (FIFO)", true},
		{"write fifo", "write_file", map[string]any{"path": "fifo.go", "content": "x"}, "fifo.go is a named pipe (FIFO), not a regular file; only regular files can be written", true},
		{"edit fifo", "edit_file", map[string]any{"path": "fifo.go", "oldString": "a", "newString": "b"}, "named pipe (FIFO)", true},
		{"multi_edit fifo", "multi_edit", map[string]any{"path": "fifo.go", "edits": []map[string]any{{"oldString": "a", "newString": "b"}}}, "named pipe (FIFO)", true},
		{"read /dev/zero link", "read_file", map[string]any{"path": "zero"}, "resolves outside the workspace", true},
		{"write /dev/zero link", "write_file", map[string]any{"path": "zero", "content": "x"}, "resolves outside the workspace", true},
		{"read device", "read_file", map[string]any{"path": "zerodev"}, "zerodev is a character device, not a regular file", true},
		{"write device", "write_file", map[string]any{"path": "zerodev", "content": "x"}, "character device", true},
		{"read sparse 20 GB", "read_file", map[string]any{"path": "sparse.img"}, "sparse.img is a binary file of 20.0 GB (21474836480 bytes), over the 16.0 MB limit", true},
		{"read huge range", "read_file", map[string]any{"path": "huge.log", "startLine": 1, "endLine": 10}, "huge.log is 20.0 GB (21474836480 bytes), over the 16.0 MB limit for reading a file whole", true},
		{"edit huge", "edit_file", map[string]any{"path": "huge.log", "oldString": "a", "newString": "b"}, "over the 16.0 MB limit", true},
		{"grep past a fifo", "grep", map[string]any{"pattern": "needle"}, "grep-target.txt", false},
		{"grep in fifo dir", "grep", map[string]any{"pattern": "needle", "glob": "pipes/**"}, "", false},
		{"secret late in file blocks a range", "read_file", map[string]any{"path": "late-secret.txt", "startLine": 1, "endLine": 10}, `"blocked":true`, true},
		{"range of a long file", "read_file", map[string]any{"path": "long.txt", "startLine": 998, "endLine": 999}, "998\tline xxxx\n999\tline xxxxx\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if noDevice[tt.name] {
				t.Skip("cannot make a device node here")
			}
			tt.check(t, callPromptly(t, h, tt.tool, tt.args))
		})
	}
	if fi, err := os.Lstat(filepath.Join(h.dir, "fifo.go")); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("the FIFO was replaced: %v %v", fi, err)
	}
}

func TestListingStaysInside(t *testing.T) {
	h, _ := robustHarness(t)
	tests := []callCase{
		{"list link", "list_directory", map[string]any{"path": "link"}, "resolves outside the workspace", true},
		{"list link subdir", "list_directory", map[string]any{"path": "link/deep"}, "resolves outside the workspace", true},
		{"list root shows link as entry", "list_directory", map[string]any{"path": ".", "depth": nil}, `{"path":"link","is_directory":false,"depth":1}`, false},
		{"glob link", "glob_search", map[string]any{"pattern": "link/**"}, "resolves outside the workspace", true},
		{"glob link deep", "glob_search", map[string]any{"pattern": "link/deep/*.go"}, "resolves outside the workspace", true},
		{"glob everything", "glob_search", map[string]any{"pattern": "**"}, "main.go", false},
		{"glob dotdot", "glob_search", map[string]any{"pattern": "../outside/**"}, "outside the workspace", true},
		{"glob sub", "glob_search", map[string]any{"pattern": "sub/*.go"}, `["sub/keep.go"]`, false},
		{"glob missing base", "glob_search", map[string]any{"pattern": "nope/**/*.go"}, `[]`, false},
		{"find in link", "find_files", map[string]any{"pattern": "*", "path": "link"}, "resolves outside the workspace", true},
		{"find everywhere", "find_files", map[string]any{"pattern": "*.txt"}, "long.txt", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := callPromptly(t, h, tt.tool, tt.args)
			if res.Failed != tt.failed || !strings.Contains(res.Output, tt.want) || strings.Contains(res.Output, "OUTSIDE") {
				t.Fatalf("%s: failed=%v %s; want failed=%v containing %q and no outside name", tt.tool, res.Failed, res.Output, tt.failed, tt.want)
			}
		})
	}
}

// TestListingRace flips a directory to a symlink leading outside while the
// listing tools run: no outside name may ever appear.
func TestListingRace(t *testing.T) {
	h, outside := robustHarness(t)
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		d := filepath.Join(h.dir, "dirflip")
		moved, link := d+".moved", d+".link"
		os.Symlink(outside, link)
		for !stop.Load() {
			os.Rename(d, moved)
			os.Rename(link, d)
			os.Rename(d, link)
			os.Rename(moved, d)
		}
	}()
	defer func() { stop.Store(true); wg.Wait() }()
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"list_directory", map[string]any{"path": "dirflip", "depth": nil}},
		{"list_directory", map[string]any{"path": ".", "depth": nil}},
		{"glob_search", map[string]any{"pattern": "dirflip/**"}},
		{"glob_search", map[string]any{"pattern": "**/*.txt"}},
		{"find_files", map[string]any{"pattern": "*", "path": "dirflip"}},
		{"find_files", map[string]any{"pattern": "*"}},
	}
	deadline := time.Now().Add(time.Second)
	for n := 0; time.Now().Before(deadline) || n < 50; n++ {
		for _, c := range calls {
			if res := h.call(c.tool, c.args); strings.Contains(res.Output, "OUTSIDE") {
				t.Fatalf("%s %v listed a name from outside: %s", c.tool, c.args, res.Output)
			}
		}
	}
}

func TestReadLimitIsTheWorkspaceOne(t *testing.T) {
	if workspace.MaxReadSize < workspace.MaxGrepFileSize {
		t.Fatalf("read_file's limit %d is below grep's %d: a file grep finds could not be read", workspace.MaxReadSize, workspace.MaxGrepFileSize)
	}
}
