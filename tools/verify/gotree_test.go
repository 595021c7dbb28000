package verify

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// goChecksRun runs the Go checks of the project at dir with exec and
// returns the commands exec was given, by check.
func goChecksRun(t *testing.T, root, dir string, exec Exec) map[string]string {
	t.Helper()
	got := map[string]string{}
	rec := func(ctx context.Context, d, command string, timeout time.Duration) (Output, error) {
		if exec != nil {
			return exec(ctx, d, command, timeout)
		}
		return Output{}, nil
	}
	d := Detector{Root: root, LookPath: func(string) (string, error) { return "/bin/true", nil }}
	for _, c := range d.projectChecks(dir) {
		if !c.goTool {
			continue
		}
		Run(context.Background(), func(ctx context.Context, d, command string, timeout time.Duration) (Output, error) {
			got[c.Name] = command
			return rec(ctx, d, command, timeout)
		}, c, Target{}, time.Minute)
	}
	return got
}

// TestGoTreeLeavesPureGoCommandsAlone: a tree without cgo or assembly
// gets the Go checks' commands byte for byte as before; one with either
// gets the digest into CGO_CPPFLAGS or into -asmflags of its packages.
func TestGoTreeLeavesPureGoCommandsAlone(t *testing.T) {
	const mod = "module example.com/m\n\ngo 1.21\n"
	for _, tc := range []struct {
		name    string
		dir     string
		files   map[string]string
		symlink [2]string // name, target
		cgo     bool
		asm     []string // -asmflags patterns
	}{
		{name: "pure Go", files: map[string]string{"go.mod": mod, "p/p.go": "package p\n", "README": "x\n", "p/testdata/x.h": "#define X 1\n"}},
		{name: "pure Go naming C in a string", files: map[string]string{"go.mod": mod,
			"p/p.go": "package p\n\nimport \"fmt\"\n\nvar S = fmt.Sprint(\"C\", `C`)\n"}},
		{name: "pure Go with a C header but no cgo", files: map[string]string{"go.mod": mod, "p/p.go": "package p\n", "p/x.h": "int x;\n"}},
		{name: "pure Go vendored", files: map[string]string{"go.mod": mod, "p/p.go": "package p\n", "vendor/example.com/v/v.go": "package v\n"}},
		{name: "cgo and assembly in a nested module (GOROOT/src copied in)", files: map[string]string{"go.mod": mod, "p/p.go": "package p\n",
			"copy/go.mod": "module std\n", "copy/c/c.go": "package c\n\nimport \"C\"\n", "copy/a/a_amd64.s": "\n"}},
		{name: "cgo in a nested module a replace names", cgo: true, files: map[string]string{"go.mod": mod + "\nreplace example.com/n => ./n\n",
			"n/go.mod": "module example.com/n\n", "n/c.go": "package n\n\nimport \"C\"\n"}},
		{name: "cgo in a module of a go.work", cgo: true, dir: "a", files: map[string]string{"go.work": "go 1.21\n\nuse (\n\t./a\n\t./n\n)\n",
			"a/go.mod": mod, "n/go.mod": "module example.com/n\n", "n/c.go": "package n\n\nimport \"C\"\n"}},
		{name: "cgo", cgo: true, files: map[string]string{"go.mod": mod, "p/p.go": "package p\n\n// #include \"../h/x.h\"\nimport \"C\"\n"}},
		{name: "cgo in a group, raw", cgo: true, files: map[string]string{"go.mod": mod, "p/p.go": "package p\n\nimport (\n\t\"fmt\"\n\t`C`\n)\n"}},
		{name: "cgo vendored", cgo: true, files: map[string]string{"go.mod": mod, "vendor/example.com/v/v.go": "package v\n\nimport \"C\"\n"}},
		{name: "a symlinked .go file", cgo: true, files: map[string]string{"go.mod": mod, "p/p.go": "package p\n"}, symlink: [2]string{"p/q.go", "/usr/local/go/src/runtime/cgo/cgo.go"}},
		{name: "unparsable .go naming C", cgo: true, files: map[string]string{"go.mod": mod, "p/p.go": "package p\nimport (\n\t\"C\"\n\t\"fmt\n"}},
		{name: "swig", cgo: true, files: map[string]string{"go.mod": mod, "p/p.go": "package p\n", "p/p.swig": "%module p\n"}},
		{name: "assembly", asm: []string{"./..."}, files: map[string]string{"go.mod": mod, "p/p.go": "package p\n", "p/p_amd64.s": "\n"}},
		{name: "assembly in a sub-module", dir: "sub/m", asm: []string{"../../..."},
			files: map[string]string{"sub/m/go.mod": mod, "sub/m/p/p.go": "package p\n", "sub/m/p/p_amd64.s": "\n"}},
		{name: "vendored assembly", asm: []string{"./...", "./vendor/example.com/v"},
			files: map[string]string{"go.mod": mod, "vendor/example.com/v/v.go": "package v\n", "vendor/example.com/v/v_amd64.S": "\n",
				"vendor/bad name/v.s": "\n"}},
		{name: "vendored assembly in a sub-module (not the vendor folder above it)", dir: "sub/m", asm: []string{"../../...", "./vendor/y"},
			files: map[string]string{"sub/m/go.mod": mod, "vendor/x/x.s": "\n", "sub/m/vendor/y/y.sx": "\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			writeTree(t, root, tc.files)
			if tc.symlink[0] != "" {
				if err := os.Symlink(tc.symlink[1], filepath.Join(root, tc.symlink[0])); err != nil {
					t.Fatal(err)
				}
			}
			dir := tc.dir
			if dir == "" {
				dir = "."
			}
			got := goChecksRun(t, root, dir, nil)
			if len(got) != 3 {
				t.Fatalf("ran %v, want go build, go test and go vet", got)
			}
			plain := map[string]string{} // the checks' own commands
			for _, c := range (Detector{Root: root}).goChecks(dir) {
				if c.goTool {
					plain[c.Name] = c.Command(Target{})
				}
			}
			g := scanGoTree(context.Background(), root, dir)
			for name, cmd := range plain {
				want := cmd
				var env []string
				if tc.cgo {
					env = append(env, `CGO_CPPFLAGS="${CGO_CPPFLAGS:+$CGO_CPPFLAGS }-D_AUTARCH_GATE_TREE=`+g.digest+`"`)
				}
				if len(tc.asm) > 0 {
					var flags []string
					for _, p := range tc.asm {
						flags = append(flags, "-asmflags="+p+"=-D=_AUTARCH_GATE_TREE="+g.digest)
					}
					env = append(env, `GOFLAGS="${GOFLAGS:+$GOFLAGS }`+strings.Join(flags, " ")+`"`)
				}
				if len(env) > 0 {
					if len(g.digest) != 32 {
						t.Fatalf("digest %q", g.digest)
					}
					want = strings.Join(env, " ") + " " + cmd
				}
				if got[name] != want {
					t.Errorf("%s ran\n\t%s\nwant\n\t%s", name, got[name], want)
				}
			}
		})
	}
}

// TestGoTreeDigestFollowsEveryFile: the digest changes when any file of
// the tree changes, a .go file or an ignored one included, and when a
// symlink's target does; it does not follow symlinks out of the tree.
func TestGoTreeDigestFollowsEveryFile(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"go.mod": "module m\n", "p/p.go": "package p\n\nimport \"C\"\n", "hdr/a.h": "#define A 1\n",
		"testdata/x.go": "int x;\n", ".gitignore": "out/\n", "out/gen.h": "#define G 1\n"})
	outside := t.TempDir()
	writeTree(t, outside, map[string]string{"o.h": "1\n"})
	if err := os.Symlink(outside, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	digest := func() string { return scanGoTree(context.Background(), root, ".").digest }
	last := digest()
	if last != digest() {
		t.Fatal("two scans of the same tree differ")
	}
	for _, step := range []struct {
		name string
		do   func() error
	}{
		{"header, same size", func() error { return os.WriteFile(filepath.Join(root, "hdr/a.h"), []byte("#define A 2\n"), 0o644) }},
		{"a .go file outside any package", func() error { return os.WriteFile(filepath.Join(root, "testdata/x.go"), []byte("int y;\n"), 0o644) }},
		{"an ignored file", func() error { return os.WriteFile(filepath.Join(root, "out/gen.h"), []byte("#define G 2\n"), 0o644) }},
		{"a symlink's target", func() error {
			if err := os.Remove(filepath.Join(root, "link")); err != nil {
				return err
			}
			return os.Symlink(filepath.Join(outside, "o.h"), filepath.Join(root, "link"))
		}},
		{"a new file", func() error { return os.WriteFile(filepath.Join(root, "hdr/b.h"), nil, 0o644) }},
		{"mtime set back", func() error {
			p := filepath.Join(root, "hdr/a.h")
			fi, err := os.Stat(p)
			if err != nil {
				return err
			}
			if err := os.WriteFile(p, []byte("#define A 3\n"), 0o644); err != nil {
				return err
			}
			return os.Chtimes(p, fi.ModTime(), fi.ModTime())
		}},
	} {
		// A stamp's times are the kernel's coarse clock: let it tick.
		time.Sleep(20 * time.Millisecond)
		if err := step.do(); err != nil {
			t.Fatal(err)
		}
		d := digest()
		if d == last {
			t.Errorf("%s: the digest did not change", step.name)
		}
		last = d
	}
	// Outside the tree, behind the symlink: not walked.
	writeTree(t, outside, map[string]string{"o2.h": "2\n"})
	if d := digest(); d != last {
		t.Error("the digest changed with a file outside the tree (the walk followed a symlink)")
	}
}

// TestGateCacheTracksIncludedHeadersPlainGo drives the Go checks as the
// gates run them, with a build cache kept across runs (real go, no
// sandbox): after a first run passes with a good header, a change to
// the header alone fails the build, vet or tests again. (That the bad
// header fails a cold build is checked by the tools' test,
// TestGatesTrackIncludedHeaders: here a cold cache would build std.)
func TestGateCacheTracksIncludedHeadersPlainGo(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc not found: cgo needs it")
	}
	if testing.Short() {
		t.Skip("builds with cgo: a minute")
	}
	for _, tc := range includeCases() {
		t.Run(tc.Name, func(t *testing.T) {
			root := t.TempDir()
			writeTree(t, root, tc.Files)
			writeTree(t, root, map[string]string{tc.Header: "#define ANSWER 42\n"})
			// The user's cache is warm with std; the tree's packages are
			// its own (their ids hash its folder): the cache is kept
			// across the runs as the gates keep theirs.
			gate := func() map[string]Report {
				out := map[string]Report{}
				d := Detector{Root: root}
				for _, c := range d.projectChecks(tc.Dir) {
					if c.goTool {
						out[c.Name] = Run(context.Background(), bashExec(root), c, Target{}, 5*time.Minute)
					}
				}
				return out
			}
			for name, r := range gate() {
				if r.Status != StatusPass {
					t.Fatalf("the first run, good header: %s %s: %s\n%s", name, r.Status, r.Error, r.Output)
				}
			}
			time.Sleep(20 * time.Millisecond) // the stamp's clock is coarse
			writeTree(t, root, map[string]string{tc.Header: tc.Bad})
			for name, r := range gate() {
				if slices.Contains(tc.Fails, name) && r.Status == StatusPass {
					t.Errorf("%s passed with the kept cache over a header that fails it (the archive of the old header was reused):\n%s", name, r.Output)
				}
			}
		})
	}
}

// bashExec runs commands as the sandbox does (bash -c in the project's
// folder) with the user's build cache.
func bashExec(root string) Exec {
	return func(ctx context.Context, dir, command string, timeout time.Duration) (Output, error) {
		cmd := exec.CommandContext(ctx, "bash", "-c", command)
		cmd.Dir = filepath.Join(root, filepath.FromSlash(dir))
		cmd.Env = append(os.Environ(), "GOFLAGS=", "CGO_ENABLED=1", "GOTOOLCHAIN=local")
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code, err = ee.ExitCode(), nil
		}
		return Output{ExitCode: code, Stdout: stdout.String(), Stderr: stderr.String()}, err
	}
}

// includeCase is a tree whose Go package includes Header from another
// folder: with "#define ANSWER 42" its checks pass, with Bad the checks
// in Fails fail.
type includeCase struct {
	Name   string
	Dir    string // the Go project's folder
	Files  map[string]string
	Header string
	Bad    string
	Fails  []string
}

const answerTest = `package b

import "testing"

func TestAnswer(t *testing.T) {
	if got := Answer(); got != 42 {
		t.Fatalf("Answer() = %d", got)
	}
}
`

const answerAsm = "#include \"textflag.h\"\n#include \"%s\"\n\nTEXT ·Answer(SB), NOSPLIT, $0-8\n\tMOVQ $ANSWER, AX\n\tMOVQ AX, ret+0(FP)\n\tRET\n"

func includeCases() []includeCase {
	const mod = "module example.com/p\n\ngo 1.21\n"
	cases := []includeCase{
		{Name: "cgo preamble, answer changed", Dir: ".", Header: "hdr/answer.h", Bad: "#define ANSWER 41\n", Fails: []string{"go test"},
			Files: map[string]string{"go.mod": mod, "b/b_test.go": answerTest,
				"b/b.go": "package b\n\n// #include \"../hdr/answer.h\"\nimport \"C\"\n\nfunc Answer() int { return int(C.ANSWER) }\n"}},
		{Name: "cgo -I flag, header does not compile", Dir: ".", Header: "hdr/answer.h", Bad: "#error planted\n", Fails: []string{"go build", "go test", "go vet"},
			Files: map[string]string{"go.mod": mod, "b/b_test.go": answerTest,
				"b/b.go": "package b\n\n// #cgo CFLAGS: -I${SRCDIR}/../hdr\n// #include \"answer.h\"\nimport \"C\"\n\nfunc Answer() int { return int(C.ANSWER) }\n"}},
		{Name: "cgo in a sub-module, header above it", Dir: "sub/m", Header: "hdr/answer.h", Bad: "#define ANSWER 41\n", Fails: []string{"go test"},
			Files: map[string]string{"sub/m/go.mod": mod, "sub/m/b/b_test.go": answerTest,
				"sub/m/b/b.go": "package b\n\n// #include \"../../../hdr/answer.h\"\nimport \"C\"\n\nfunc Answer() int { return int(C.ANSWER) }\n"}},
	}
	if runtime.GOARCH == "amd64" {
		cases = append(cases,
			includeCase{Name: "assembly include", Dir: ".", Header: "hdr/answer.h", Bad: "#define ANSWER 41\n", Fails: []string{"go test"},
				Files: map[string]string{"go.mod": mod, "b/b_test.go": answerTest, "b/b.go": "package b\n\nfunc Answer() int64\n",
					"b/b_amd64.s": fmt.Sprintf(answerAsm, "../hdr/answer.h")}},
			includeCase{Name: "vendored assembly include", Dir: ".", Header: "hdr/answer.h", Bad: "#define ANSWER 41\n", Fails: []string{"go test"},
				Files: map[string]string{
					"go.mod":                         mod + "\nrequire example.com/v v0.0.0\n",
					"vendor/modules.txt":             "# example.com/v v0.0.0\n## explicit\nexample.com/v\n",
					"b/b.go":                         "package b\n\nimport \"example.com/v\"\n\nfunc Answer() int64 { return v.Answer() }\n",
					"b/b_test.go":                    answerTest,
					"vendor/example.com/v/v.go":      "package v\n\nfunc Answer() int64\n",
					"vendor/example.com/v/v_amd64.s": fmt.Sprintf(answerAsm, "../../../hdr/answer.h")}},
		)
	}
	return cases
}
