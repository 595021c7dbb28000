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

// fakeCodeServer records its arguments and writes what code-server writes
// where it does: its config.yaml under XDG_CONFIG_HOME, its state under
// XDG_DATA_HOME (both default to the home directory).
const fakeCodeServer = `echo "$@" >> "$STUB_LOG"
cfg="${XDG_CONFIG_HOME:-$HOME/.config}/code-server"
mkdir -p "$cfg" && echo "bind-addr: 127.0.0.1:8080" > "$cfg/config.yaml"
data="${XDG_DATA_HOME:-$HOME/.local/share}/code-server"
mkdir -p "$data" && touch "$data/heartbeat"
`

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
	script, err := os.ReadFile(filepath.Join(repoRoot(t), "scripts", "run.sh"))
	if err != nil {
		t.Fatal(err)
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
			tmp := t.TempDir()
			clone, home, stubs := filepath.Join(tmp, "clone"), filepath.Join(tmp, "home"), filepath.Join(tmp, "stubs")
			folder := filepath.Join(tmp, "project")
			for _, d := range []string{home, folder} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			stub(t, filepath.Join(clone, "scripts", "run.sh"), strings.TrimPrefix(string(script), "#!/usr/bin/env bash\n"))
			os.Chmod(filepath.Join(clone, "scripts", "run.sh"), 0o755)
			stub(t, filepath.Join(stubs, "bwrap"), "exit 0\n")
			// The installers are stubbed (run.sh's earlier versions ran
			// install-e2e.sh), code-server is the fake at its usual place.
			stub(t, filepath.Join(clone, ".ci", "install-run.sh"), "exit 0\n")
			stub(t, filepath.Join(clone, ".ci", "install-e2e.sh"), "exit 0\n")
			stub(t, filepath.Join(clone, ".cache", "code-server", "node_modules", ".bin", "code-server"), fakeCodeServer)
			path := stubs + ":/usr/bin:/bin"
			cmd := exec.Command("bash", filepath.Join(clone, "scripts", "run.sh"))
			if _, err := exec.LookPath("code"); err == nil {
				t.Skip("VS Code (code) is installed: run.sh would use it")
			}
			log := filepath.Join(tmp, "code-server.log")
			cmd.Env = []string{"PATH=" + path, "HOME=" + home, "AUTARCH_FOLDER=" + folder, "AUTARCH_PORT=" + tc.port, "STUB_LOG=" + log}
			out, err := cmd.CombinedOutput()
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
