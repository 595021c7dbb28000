package sandbox

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
)

// A quality gate's go command trusts its build cache as any go command
// does: an archive or a test result found under an action's id is used
// without building or running anything again. The repository's own
// build cache (Spec.BuildCache) is written by every command of its
// agent, so a gate reading it would pass over broken code whose archive
// or "ok" an agent's command planted there. A gate's go command reads
// and writes a cache of its own instead (Spec.GateCache), over the
// user's, read-only, through GOCACHEPROG as the repository's is:
//
//   - no agent command sees it: it lives beside the repository's caches
//     in Autarch's state folder, masked to commands, and a gate command
//     sees it at gateCachePath only;
//   - in a gate command the go command, the compiler, the linker and vet
//     write it, but the test binaries are the agent's code: go test runs
//     them through gateExecPath (-exec in GOFLAGS), the running binary,
//     which restricts them with Landlock to writing the command's
//     writable trees (the worktree, the repository's caches, /tmp, the
//     home directory), neither the gate's cache nor the go command's
//     work folder (GOTMPDIR, gateTmpPath), and points their GOCACHE at
//     the repository's cache, so that a test that runs go still works.
//     Landlock also keeps them from tracing the go command or the -exec
//     program;
//   - go test caches no test result when it runs tests through -exec:
//     the -exec program does, with go's semantics (testcache.go), in a
//     folder of the gate's cache (testResultsDir) that it alone writes.
//     It runs each test binary as its child, from a thread Landlock
//     restricts for it alone, with -test.testlogfile in the go command's
//     work folder; it keeps the output of a run it saw exit 0, under the
//     binary's contents, its arguments, its folder and the inputs its
//     test log names, and replays that output and status instead of
//     running the binary again while they are unchanged. A failing run
//     is never kept. What a test binary claims (its output, its test
//     log) can make its own result stale, never another's: a test that
//     always passes could do as much;
//   - GOENV=off, GOTOOLCHAIN=local and GOFLAGS (the user's and -exec)
//     are set: nothing a command persisted changes the gate's go.
//
// Without Landlock (Linux before 5.13) the test binaries cannot be kept
// from writing what the go command writes: each gate command builds with
// a throwaway cache (a tmpfs at gateCachePath) over the user's, colder
// and safe from every earlier command, and Spec.GateCache is not used;
// no test result is kept (a test binary could plant one for another
// package of the same command), so each gate runs its tests again.

// gateCachePath is where a gate command sees its build cache.
const gateCachePath = "/run/autarch-sandbox/gate-cache"

// gateTmpPath is the go command's work folder in a gate command: the
// archives it compiled before it puts them in the cache.
const gateTmpPath = "/run/autarch-sandbox/gate-tmp"

// GateCacheMode says how gate commands keep their Go build cache here,
// for autarch doctor.
func (b *Bwrap) GateCacheMode() string {
	if b.landlock > 0 {
		return fmt.Sprintf("each repository's gate cache (<git dir>/autarch/caches-gates/go-build), written by the gates' go command only, and its passing test results (%s), written by Autarch only; test binaries run under Landlock (ABI %d) and cannot write either", testResultsDir, b.landlock)
	}
	return "a throwaway cache per gate command, and no test result kept (Landlock is not available in this kernel to keep test binaries from writing a kept one): slower, as safe"
}

// gateLayer returns bwrap's arguments and the environment of a gate
// command whose agent's writable trees are writable: env is the
// command's as an agent's command would have it.
func (b *Bwrap) gateLayer(spec Spec, writable []string, env []string) ([]string, []string, error) {
	var a []string
	test := gateTest{Landlock: b.landlock > 0, Unset: []string{"GOTMPDIR", "GOENV", gateExecEnv}}
	if b.landlock > 0 && spec.GateCache != "" {
		p := filepath.Clean(spec.GateCache)
		if !filepath.IsAbs(p) {
			return nil, nil, fmt.Errorf("sandbox: the gate's build cache %q is not absolute", p)
		}
		if err := b.checkWritableRoot(p); err != nil {
			return nil, nil, err
		}
		if err := cacheDir(p, false, 0o700); err != nil {
			return nil, nil, fmt.Errorf("sandbox: the gate's build cache: %w", err)
		}
		a = append(a, "--bind", p, gateCachePath)
		// Kept only where the test binaries cannot write it: a
		// throwaway cache would let one package's test binary plant
		// another's result within the same command.
		test.Results, test.Private = filepath.Join(gateCachePath, testResultsDir), gateTmpPath
	} else {
		a = append(a, "--tmpfs", gateCachePath)
	}
	a = append(a, "--tmpfs", gateTmpPath, "--symlink", filepath.Base(goCacheProgPath), gateExecPath)

	test.Writable = append(test.Writable, writable...)
	home, _ := lookupEnv(env, "HOME")
	test.Writable = append(test.Writable, "/tmp", "/var/tmp", "/dev", home)
	flags, _ := lookupEnv(env, "GOFLAGS")
	test.Env = append(test.Env, "GOFLAGS="+flags)
	if own, ok := lookupEnv(env, "GOCACHE"); ok {
		test.Env = append(test.Env, "GOCACHE="+own)
	}
	if prog, ok := lookupEnv(env, "GOCACHEPROG"); ok {
		test.Env = append(test.Env, "GOCACHEPROG="+prog)
	} else {
		test.Unset = append(test.Unset, "GOCACHEPROG")
	}
	data, err := json.Marshal(test)
	if err != nil {
		return nil, nil, err
	}
	env = setEnv(env, "GOCACHE", gateCachePath)
	env = unsetEnv(env, "GOCACHEPROG")
	if prog := b.goCacheLayer(spec, gateCachePath); prog != "" {
		env = setEnv(env, "GOCACHEPROG", prog)
		a = append(a, "--ro-bind", b.goCache, b.goCache) // again, when an agent's command would read it too
	}
	env = setEnv(env, "GOTMPDIR", gateTmpPath)
	env = setEnv(env, "GOENV", "off")
	env = setEnv(env, "GOTOOLCHAIN", "local")
	env = setEnv(env, "GOFLAGS", strings.TrimSpace(flags+" -exec="+gateExecPath))
	env = setEnv(env, gateExecEnv, string(data))
	return a, env, nil
}
