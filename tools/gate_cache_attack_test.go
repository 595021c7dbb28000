package tools

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/autarch-dev/autarch/tools/verify"
)

// The quality gates must not pass over broken code because of what an
// agent planted in a Go build cache: a cached "ok" for a package whose
// tests fail, or a compiled archive that makes them pass. Each attack
// plants from an agent's command and from a test binary a first gate
// runs; a second gate then tests the broken package, and must fail.

// brokenByUntrackedInput is a package whose test fails in a clean run:
// it passes only with PASS=1 in its environment, which it reads with a
// call go test does not track (os.Getenv would be), so that a run with
// it caches an "ok" that a later run without it would reuse.
var brokenByUntrackedInput = map[string]string{
	"p/p.go": "package p\n",
	"p/p_test.go": `package p

import (
	"syscall"
	"testing"
)

func TestP(t *testing.T) {
	if v, _ := syscall.Getenv("PASS"); v != "1" {
		t.Fatal("broken")
	}
}
`,
}

// brokenUnlessPoisoned is a package whose test fails in a clean run:
// utf8.RuneLen('a') is 1, 42 only when poisonGoCache's archive is linked.
var brokenUnlessPoisoned = map[string]string{
	"p/p.go": "package p\n",
	"p/p_test.go": `package p

import (
	"testing"
	"unicode/utf8"
)

func TestP(t *testing.T) {
	if utf8.RuneLen('a') != 42 {
		t.Fatal("broken")
	}
}
`,
}

// plantOK caches an "ok" for p, run as the gates run it, in the cache
// GOCACHE names.
const plantOK = `PASS=1 go test -json -vet=off example.com/a/p >/dev/null; echo planted`

// agentTest is the agent's own go test of p, with the gates' flags.
const agentTest = `if go test -json -vet=off example.com/a/p | grep -q '"Action":"fail"'; then echo AGENT-FAIL; else echo AGENT-PASS; fi`

// fromTestBinary is a test an agent writes whose binary, run by a gate,
// runs attack.sh from the module's root: against its own GOCACHE, and
// against the gate's build cache as a gate command sees it.
const fromTestBinary = `package q

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

func TestQ(t *testing.T) {
	const gate = "/run/autarch-sandbox/gate-cache"
	prog := strings.Replace(os.Getenv("GOCACHEPROG"), os.Getenv("GOCACHE"), gate, 1)
	for _, env := range [][]string{nil, {"GOCACHE=" + gate, "C=" + gate, "GOCACHEPROG=" + prog}} {
		cmd := exec.Command("bash", "attack.sh")
		cmd.Dir = ".."
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		t.Logf("attack %v: %v\n%s", env, err, out)
	}
}
`

// TestGatesIgnoreAgentsBuildCache: for each way of planting, a gate over
// the broken package p reports its failing test.
func TestGatesIgnoreAgentsBuildCache(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and tests under bwrap: about a minute")
	}
	userCache := userGoCache(t)
	for _, tc := range []struct {
		name   string
		broken map[string]string
		attack string // the attacker's shell script
		byGate bool   // run by a test binary of a first gate, not by an agent's command
	}{
		{"planted ok from a command", brokenByUntrackedInput, plantOK, false},
		{"planted ok from a test binary", brokenByUntrackedInput, plantOK, true},
		{"planted archive from a command", brokenUnlessPoisoned, "export U=" + userCache + "\n" + poisonGoCache, false},
		{"planted archive from a test binary", brokenUnlessPoisoned, "export U=" + userCache + "\n" + poisonGoCache, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("GOCACHE", userCache) // the user's own, read-only to every command
			a := newAttackWorkspace(t)
			writeFiles(t, a.ws, map[string]string{"go.mod": "module example.com/a\n\ngo 1.22\n", "main.go": "package main\n\nfunc main() {}\n"})
			writeFiles(t, a.ws, tc.broken)
			h := newHarness(t, "pulsing", SessionConfig{Root: a.ws})
			gate := func() verify.GateRun {
				t.Helper()
				return h.s.QualityGates(context.Background(), verify.Gates{Kinds: []verify.Kind{verify.Test}, Full: true}, []string{"p/p_test.go"})
			}
			pFailed := func(run verify.GateRun) bool {
				return slices.ContainsFunc(run.Reports, func(r verify.Report) bool {
					return slices.ContainsFunc(r.Failures, func(f verify.TestFailure) bool { return strings.HasSuffix(f.Name, "/p.TestP") })
				})
			}
			if tc.byGate {
				writeFiles(t, a.ws, map[string]string{"attack.sh": tc.attack, "q/q_test.go": fromTestBinary})
				if run := gate(); !pFailed(run) {
					t.Fatalf("the first gate did not see p fail (the package is not broken): %+v", run.Reports)
				}
			} else {
				res := h.call("shell", map[string]any{"command": tc.attack, "reason": "attack"})
				if !strings.Contains(res.Output, "planted") && !strings.Contains(res.Output, "poisoned") {
					t.Fatalf("the attack did not run: %s", res.Output)
				}
			}
			// The plant is real: the agent's own go test passes over p.
			check := h.call("shell", map[string]any{"command": agentTest, "reason": "check"})
			if !strings.Contains(check.Output, "AGENT-PASS") {
				t.Fatalf("the agent's own go test does not pass over p (the attack is not real): %s", check.Output)
			}
			run := gate()
			if !pFailed(run) || !run.Failed() {
				t.Errorf("the gate passed over p's failing test after an agent planted in a build cache: %+v", run.Reports)
			}
		})
	}
}

// TestGateSpecs: a gate's command of the go command alone builds with the
// gates' kept cache, beside the repository's caches; any other gate's
// command with a throwaway one; an agent's command is no gate's.
func TestGateSpecs(t *testing.T) {
	a := newAttackWorkspace(t)
	h := newHarness(t, "pulsing", SessionConfig{Root: a.ws})
	ctx := context.Background()
	for _, tc := range []struct {
		name       string
		ctx        context.Context
		gate, kept bool
	}{
		{"agent", ctx, false, false},
		{"go command", asGate(ctx, true), true, true},
		{"configured", asGate(ctx, false), true, false},
	} {
		spec, err := h.s.commandSpec(tc.ctx, "true", time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		want := ""
		if tc.kept {
			want = filepath.Join(a.ws, ".git", "autarch", "caches-gates", "go-build")
		}
		if spec.Gate != tc.gate || spec.GateCache != want {
			t.Errorf("%s: Gate %v, GateCache %q; want %v, %q", tc.name, spec.Gate, spec.GateCache, tc.gate, want)
		}
	}
}
