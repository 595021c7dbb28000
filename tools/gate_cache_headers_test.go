package tools

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/tools/verify"
)

// TestGatesTrackIncludedHeaders (red team s13, 01; the acceptance of
// its fix): the go command's action id of a package hashes the files of
// its own folder, not a header its C preamble or its assembly includes
// from another (../hdr/answer.h, -I${SRCDIR}/../hdr). An agent passes
// one gate with a good header and changes the header alone: the next
// gate, through the real gate commands (bwrap, the kept gate cache),
// must fail as a gate with a cold cache does, not reuse the archive of
// the old header.
func TestGatesTrackIncludedHeaders(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cgo under bwrap: a minute")
	}
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Fatalf("gcc not found (%v): cgo needs it", err)
	}
	userCache := userGoCache(t)
	const test = `package b

import "testing"

func TestAnswer(t *testing.T) {
	if got := Answer(); got != 42 {
		t.Fatalf("Answer() = %d", got)
	}
}
`
	cases := []struct {
		name  string
		files map[string]string
		bad   string
		fails []string // the checks the bad header fails
	}{
		{"cgo preamble, answer changed", map[string]string{"b/b_test.go": test,
			"b/b.go": "package b\n\n// #include \"../hdr/answer.h\"\nimport \"C\"\n\nfunc Answer() int { return int(C.ANSWER) }\n"},
			"#define ANSWER 41", []string{"go test"}},
		{"cgo -I flag, header does not compile", map[string]string{"b/b_test.go": test,
			"b/b.go": "package b\n\n// #cgo CFLAGS: -I${SRCDIR}/../hdr\n// #include \"answer.h\"\nimport \"C\"\n\nfunc Answer() int { return int(C.ANSWER) }\n"},
			"#error planted", []string{"go build"}}, // a failed build stops the gate
	}
	if runtime.GOARCH == "amd64" {
		cases = append(cases, struct {
			name  string
			files map[string]string
			bad   string
			fails []string
		}{"assembly include", map[string]string{"b/b_test.go": test, "b/b.go": "package b\n\nfunc Answer() int64\n",
			"b/b_amd64.s": "#include \"textflag.h\"\n#include \"../hdr/answer.h\"\n\nTEXT ·Answer(SB), NOSPLIT, $0-8\n\tMOVQ $ANSWER, AX\n\tMOVQ AX, ret+0(FP)\n\tRET\n"},
			"#define ANSWER 41", []string{"go test"}})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("GOCACHE", userCache) // the user's own, read-only to every command
			a := newAttackWorkspace(t)
			writeFiles(t, a.ws, map[string]string{"go.mod": "module example.com/p\n\ngo 1.21\n", "hdr/answer.h": "#define ANSWER 42\n"})
			writeFiles(t, a.ws, tc.files)
			// No main package: go build would stamp it from the fake git.
			if err := os.Remove(filepath.Join(a.ws, "main.go")); err != nil {
				t.Fatal(err)
			}
			h := newHarness(t, "pulsing", SessionConfig{Root: a.ws})
			gate := func(full bool, changed ...string) verify.GateRun {
				t.Helper()
				return h.s.QualityGates(context.Background(), verify.Gates{Full: full}, changed)
			}
			failed := func(run verify.GateRun) []string {
				var out []string
				for _, r := range run.Reports {
					if r.Status != verify.StatusPass {
						out = append(out, r.Check)
					}
				}
				return out
			}
			if run := gate(false, "b/b.go", "b/b_test.go", "hdr/answer.h"); run.Failed() || len(run.Reports) != 3 {
				t.Fatalf("the first gate, good header: %+v", run.Reports)
			}
			res := h.call("shell", map[string]any{"command": "printf '%s\\n' '" + tc.bad + "' > hdr/answer.h && echo changed", "reason": "the header alone"})
			if !strings.Contains(res.Output, "changed") {
				t.Fatalf("the agent's command: %s", res.Output)
			}
			// A gate over the header alone (the packages that include it
			// are affected), then one over everything.
			affected := failed(gate(false, "hdr/answer.h"))
			kept := failed(gate(true, "b/b.go"))
			// The same tree with a cold gate cache: the bad header fails
			// it (the test cannot pass for another reason).
			if err := os.RemoveAll(filepath.Join(a.ws, ".git", "autarch", "caches-gates")); err != nil {
				t.Fatal(err)
			}
			cold := failed(gate(true, "b/b.go"))
			for _, c := range tc.fails {
				if !slices.Contains(cold, c) {
					t.Fatalf("the bad header does not fail %s in a cold gate (failed: %v)", c, cold)
				}
				if !slices.Contains(kept, c) {
					t.Errorf("%s passed with the gates' kept cache over a header that fails it (the archive of the old header was reused); failed: %v", c, kept)
				}
				if !slices.Contains(affected, c) {
					t.Errorf("%s passed (or did not run) in a gate over the changed header alone; failed: %v", c, affected)
				}
			}
		})
	}
}
