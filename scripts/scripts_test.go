// Package scripts holds the tests of the Makefile's install target and of
// scripts/run.sh (`make run`), run for real with stubs where they would
// install or start something.
package scripts

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// repoRoot is the clone's root (tests run in scripts/).
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func goEnv(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		t.Fatalf("go env %s: %v", name, err)
	}
	return strings.TrimSpace(string(out))
}

// TestMakeInstall installs the binary where the README says and says where.
func TestMakeInstall(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "build", "autarch")
	tests := []struct {
		name string
		args []string
		env  []string
		want string
	}{
		{"INSTALL_DIR", []string{"INSTALL_DIR=" + filepath.Join(tmp, "local", "bin")}, nil, filepath.Join(tmp, "local", "bin")},
		{"GOBIN", nil, []string{"GOBIN=" + filepath.Join(tmp, "gobin")}, filepath.Join(tmp, "gobin")},
		{"GOPATH/bin", nil, []string{"GOBIN=", "GOPATH=" + filepath.Join(tmp, "gopath"), "GOMODCACHE=" + goEnv(t, "GOMODCACHE")}, filepath.Join(tmp, "gopath", "bin")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command("make", append([]string{"-s", "-C", repoRoot(t), "install", "BIN=" + bin}, tc.args...)...)
			cmd.Env = append(withoutEnv("INSTALL_DIR", "GOBIN", "MAKEFLAGS", "MFLAGS", "MAKELEVEL"), tc.env...)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("make install: %v\n%s", err, out)
			}
			installed := filepath.Join(tc.want, "autarch")
			if !strings.Contains(string(out), "as "+installed) {
				t.Fatalf("the output does not say where autarch went (%s):\n%s", installed, out)
			}
			if !strings.Contains(string(out), "is not on your PATH") {
				t.Fatalf("the output does not say how to reach it:\n%s", out)
			}
			if v, err := exec.Command(installed, "version").CombinedOutput(); err != nil || !strings.HasPrefix(string(v), "autarch ") {
				t.Fatalf("%s version: %v %s", installed, err, v)
			}
		})
	}
}

// withoutEnv is the environment without the named variables.
func withoutEnv(names ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		drop := false
		for _, n := range names {
			drop = drop || name == n
		}
		if !drop {
			env = append(env, kv)
		}
	}
	return env
}

// stub writes an executable shell script.
func stub(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
}

// fakeCodeServer records its arguments (and whether it was handed another
// editor's IPC socket) and writes what code-server writes where it does:
// its config.yaml under XDG_CONFIG_HOME, its state under XDG_DATA_HOME
// (both default to the home directory). Like code-server it chatters; the
// server (started with --bind-addr) says where it listens and exits, or
// fails as one whose port was taken when STUB_FAIL is set.
const fakeCodeServer = `echo "$@" >> "$STUB_LOG"
echo "IPC=${VSCODE_IPC_HOOK_CLI:-}" >> "$STUB_LOG"
cfg="${XDG_CONFIG_HOME:-$HOME/.config}/code-server"
mkdir -p "$cfg" && echo "bind-addr: 127.0.0.1:8080" > "$cfg/config.yaml"
data="${XDG_DATA_HOME:-$HOME/.local/share}/code-server"
mkdir -p "$data" && touch "$data/heartbeat"
bind=; prev=
for a in "$@"; do [ "$prev" = --bind-addr ] && bind="$a"; prev="$a"; done
i=0; while [ $i -lt 40 ]; do echo "[info] code-server chatter $i"; i=$((i+1)); done
[ -z "$bind" ] && exit 0
[ -n "$STUB_FAIL" ] && { echo "error listen EADDRINUSE: address already in use $bind" >&2; exit 1; }
echo "HTTP server listening on http://$bind/"
`

// runClone is a copy of the clone's scripts/run.sh in a temporary clone,
// with installers stubbed and the fake code-server at its usual place.
type runClone struct {
	clone, home, stubs, folder, calls string
}

func newRunClone(t *testing.T) runClone {
	t.Helper()
	script, err := os.ReadFile(filepath.Join(repoRoot(t), "scripts", "run.sh"))
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	c := runClone{clone: filepath.Join(tmp, "clone"), home: filepath.Join(tmp, "home"), stubs: filepath.Join(tmp, "stubs"),
		folder: filepath.Join(tmp, "project"), calls: filepath.Join(tmp, "code-server.log")}
	for _, d := range []string{c.home, c.folder} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	stub(t, filepath.Join(c.clone, "scripts", "run.sh"), strings.TrimPrefix(string(script), "#!/usr/bin/env bash\n"))
	stub(t, filepath.Join(c.stubs, "bwrap"), "exit 0\n")
	// The installers are stubbed (run.sh's earlier versions ran
	// install-e2e.sh), code-server is the fake at its usual place.
	stub(t, filepath.Join(c.clone, ".ci", "install-run.sh"), "echo installer chatter\n")
	stub(t, filepath.Join(c.clone, ".ci", "install-e2e.sh"), "exit 0\n")
	stub(t, filepath.Join(c.clone, ".cache", "code-server", "node_modules", ".bin", "code-server"), fakeCodeServer)
	if _, err := exec.LookPath("code"); err == nil {
		t.Skip("VS Code (code) is installed: run.sh would use it")
	}
	return c
}

// run runs the clone's run.sh with env added to a minimal environment.
func (c runClone) run(t *testing.T, env ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("bash", filepath.Join(c.clone, "scripts", "run.sh"))
	cmd.Env = append([]string{"PATH=" + c.stubs + ":/usr/bin:/bin", "HOME=" + c.home, "AUTARCH_FOLDER=" + c.folder, "STUB_LOG=" + c.calls}, env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// freePort returns a port nothing listens on.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	return port
}

// TestRunScript runs scripts/run.sh from a copy of the clone with a fake
// code-server: the folder and port it is given, a busy port replaced by
// the next free one (said before the URL), and nothing written outside
// the clone.
func TestRunScript(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	busyPort := busy.Addr().(*net.TCPAddr).Port
	free := freePort(t)
	tests := []struct {
		name     string
		port     string
		wantPort int
		wantOut  string
		fail     bool
	}{
		{"free port", strconv.Itoa(free), free, "", false},
		{"busy port", strconv.Itoa(busyPort), 0, fmt.Sprintf("Port %d is busy; using port ", busyPort), false},
		{"not a port", "http", 0, "AUTARCH_PORT must be a port number", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newRunClone(t)
			clone, home, folder, log := c.clone, c.home, c.folder, c.calls
			out, err := c.run(t, "AUTARCH_PORT="+tc.port)
			if tc.fail {
				if err == nil || !strings.Contains(string(out), tc.wantOut) {
					t.Fatalf("want a failure saying %q, got %v:\n%s", tc.wantOut, err, out)
				}
				return
			}
			if err != nil {
				t.Fatalf("run.sh: %v\n%s", err, out)
			}
			if !strings.Contains(string(out), tc.wantOut) {
				t.Fatalf("want %q in the output:\n%s", tc.wantOut, out)
			}
			port := tc.wantPort
			if port == 0 {
				_, after, _ := strings.Cut(string(out), tc.wantOut)
				n, _, _ := strings.Cut(after, " ")
				if port, err = strconv.Atoi(n); err != nil || port == busyPort {
					t.Fatalf("no other port chosen:\n%s", out)
				}
				if strings.Index(string(out), tc.wantOut) > strings.Index(string(out), "http://") {
					t.Fatalf("the busy port is reported after the URL:\n%s", out)
				}
			}
			url := fmt.Sprintf("http://127.0.0.1:%d/?folder=%s", port, folder)
			if !strings.Contains(string(out), url) {
				t.Fatalf("want the URL %s in the output:\n%s", url, out)
			}
			calls, err := os.ReadFile(log)
			if err != nil {
				t.Fatal(err)
			}
			if want := fmt.Sprintf("--bind-addr 127.0.0.1:%d", port); !strings.Contains(string(calls), want) {
				t.Fatalf("code-server was not started with %s:\n%s", want, calls)
			}
			var outside []string
			filepath.Walk(home, func(p string, fi os.FileInfo, err error) error {
				if err == nil && p != home {
					outside = append(outside, p)
				}
				return nil
			})
			if len(outside) > 0 {
				t.Fatalf("run.sh let code-server write outside the clone: %v", outside)
			}
			if _, err := os.Stat(filepath.Join(clone, ".cache", "run", "config", "code-server", "config.yaml")); err != nil {
				t.Fatalf("code-server's config is not under the clone's .cache/run: %v", err)
			}
		})
	}
}

// TestRunScriptQuietAndLogged: run.sh prints a few lines (the URL, what to
// do next, where the log is); the installers' and code-server's output go
// to the log, whose end is shown when code-server cannot start.
func TestRunScriptQuietAndLogged(t *testing.T) {
	tests := []struct {
		name    string
		env     []string
		fail    bool
		wantOut []string
	}{
		{"starts", nil, false, []string{"open http://127.0.0.1:", "Ctrl-C stops", "make-run.log"}},
		{"code-server fails", []string{"STUB_FAIL=1"}, true, []string{"starting code-server failed", "EADDRINUSE", "The whole log: "}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newRunClone(t)
			out, err := c.run(t, append([]string{"AUTARCH_PORT=" + strconv.Itoa(freePort(t))}, tc.env...)...)
			if (err != nil) != tc.fail {
				t.Fatalf("run.sh: %v (want failure %v)\n%s", err, tc.fail, out)
			}
			for _, want := range tc.wantOut {
				if !strings.Contains(out, want) {
					t.Errorf("want %q in the output:\n%s", want, out)
				}
			}
			if n := strings.Count(out, "\n"); n > 20 {
				t.Errorf("run.sh printed %d lines, want at most 20:\n%s", n, out)
			}
			if strings.Contains(out, "chatter") && !tc.fail {
				t.Errorf("installer or code-server output reached the terminal:\n%s", out)
			}
			log, err := os.ReadFile(filepath.Join(c.clone, ".cache", "run", "make-run.log"))
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"installer chatter", "code-server chatter 39"} {
				if !strings.Contains(string(log), want) {
					t.Errorf("the log lacks %q:\n%s", want, log)
				}
			}
		})
	}
}

// TestRunScriptOwnCodeServer: each clone's make run starts its own
// code-server with its data and session socket inside the clone, also when
// run from another code-server's terminal (which would otherwise take the
// folder over); a second make run in the same clone, while the first runs,
// says so instead of starting a second code-server on the same data.
func TestRunScriptOwnCodeServer(t *testing.T) {
	if _, err := exec.LookPath("flock"); err != nil {
		t.Skip("flock is not installed")
	}
	a, b := newRunClone(t), newRunClone(t)
	for _, c := range []runClone{a, b} {
		out, err := c.run(t, "AUTARCH_PORT="+strconv.Itoa(freePort(t)), "VSCODE_IPC_HOOK_CLI=/tmp/vscode-ipc-other.sock")
		if err != nil {
			t.Fatalf("run.sh: %v\n%s", err, out)
		}
		calls, err := os.ReadFile(c.calls)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(calls), "IPC=/") {
			t.Errorf("code-server was handed another editor's VSCODE_IPC_HOOK_CLI:\n%s", calls)
		}
		data := filepath.Join(c.clone, ".cache", "run")
		for _, want := range []string{"--user-data-dir " + filepath.Join(data, "user-data"), "--session-socket " + filepath.Join(data, "session.sock")} {
			if strings.Count(string(calls), want) != 2 {
				t.Errorf("want %q in both code-server calls:\n%s", want, calls)
			}
		}
	}

	// The first make run of clone a holds its lock while its code-server runs.
	lock, err := os.OpenFile(filepath.Join(a.clone, ".cache", "run", "run.lock"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	url := "http://127.0.0.1:8765/?folder=" + a.folder
	if err := os.WriteFile(filepath.Join(a.clone, ".cache", "run", "url"), []byte(url+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(a.calls)
	out, err := a.run(t, "AUTARCH_PORT="+strconv.Itoa(freePort(t)))
	if err == nil || !strings.Contains(out, "already running: open "+url) {
		t.Fatalf("want a failure naming the running code-server's URL, got %v:\n%s", err, out)
	}
	if _, err := os.Stat(a.calls); err == nil {
		t.Error("a second code-server was started on the same clone's data")
	}
}

// TestRunInstallsOnlyWhatRunningNeeds: `make run` installs code-server and
// Node, not the e2e's browser or Neovim; `make e2e` still gets them.
func TestRunInstallsOnlyWhatRunningNeeds(t *testing.T) {
	read := func(rel string) string {
		data, err := os.ReadFile(filepath.Join(repoRoot(t), rel))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	run, install, e2e, makefile := read("scripts/run.sh"), read(".ci/install-run.sh"), read(".ci/install-e2e.sh"), read("Makefile")
	checks := []struct {
		name string
		ok   bool
	}{
		{"run.sh installs with install-run.sh", strings.Contains(run, ".ci/install-run.sh")},
		{"run.sh does not run the e2e installer", !strings.Contains(run, "install-e2e")},
		{"install-run.sh installs no browser", !strings.Contains(install, "chromium:") && !strings.Contains(install, "need+=(chromium)")},
		{"install-run.sh installs no Neovim", !strings.Contains(install, "need+=(neovim)")},
		{"install-e2e.sh installs what running needs", strings.Contains(e2e, "install-run.sh")},
		{"install-e2e.sh installs chromium and neovim", strings.Contains(e2e, "chromium:chromium") && strings.Contains(e2e, "nvim:neovim")},
		{"make e2e-vscode runs install-e2e.sh", strings.Contains(makefile, ".ci/install-e2e.sh")},
	}
	for _, c := range checks {
		if !c.ok {
			t.Errorf("%s: no", c.name)
		}
	}
}

// TestReadmeDocumentsRunAndInstall: what a new user needs to find.
func TestReadmeDocumentsRunAndInstall(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"make install", "AUTARCH_FOLDER", "AUTARCH_PORT", "bin/autarch"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("README.md does not mention %s", want)
		}
	}
}
