package tools_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/swarm"
	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/workspace/git"
)

// TestAutarchStateInvisible: no command, in the user's repository or in a
// workflow's linked worktree, can read the swarm's NATS credentials (as
// the swarm writes them, with its server running), the workflow store,
// another workflow's worktree or the user's Autarch configuration, by any
// means; the command's own worktree (under the same state directory)
// stays readable and writable.
func TestAutarchStateInvisible(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	t.Setenv("HOME", home)
	top := filepath.Join(t.TempDir(), "repo")
	xdg := filepath.Join(top, ".xdg") // a config dir that is visible to commands
	t.Setenv("XDG_CONFIG_HOME", xdg)
	t.Setenv("XDG_CACHE_HOME", "")
	files := map[string]string{
		"main.go": "package main\n",
		filepath.Join(".xdg", "autarch", "trusted.json"): `{"trusted": "xdg-config-secret-0001"}`,
		filepath.Join(".xdg", "autarch", "mcp.json"):     `{"token": "xdg-config-secret-0002"}`,
		filepath.Join(".gitignore"):                      ".xdg/\n",
		filepath.Join("..", "home-marker"):               "",
	}
	for name, content := range files {
		writeFile(t, filepath.Join(top, name), content)
	}
	writeFile(t, filepath.Join(home, ".config", "autarch", "config.yaml"), "key: home-config-secret-0003\n")
	writeFile(t, filepath.Join(home, ".cache", "autarch", "index", "x"), "home-cache-secret-0004\n")
	repo := commitAll(t, top)
	state := repo.StateDir()
	conn, err := swarm.Connect(ctx, swarm.ConnOptions{StateDir: state})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	authFile := filepath.Join(state, "nats", "auth.json")
	var auth struct{ Password string }
	if data, err := os.ReadFile(authFile); err != nil || json.Unmarshal(data, &auth) != nil || len(auth.Password) < 16 {
		t.Fatalf("the swarm wrote no credentials: %q %v", data, err)
	}
	st, err := store.Open(ctx, store.Path(state), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	wf, err := repo.CreateWorkflow(ctx, "mine", "main")
	if err != nil {
		t.Fatal(err)
	}
	other, err := repo.CreateWorkflow(ctx, "other", "main")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(other.Worktree, "draft.go"), "// other-workflow-secret-0005\n")

	secrets := []string{auth.Password, "SQLite format 3", "xdg-config-secret", "home-config-secret", "home-cache-secret", "other-workflow-secret"}
	names := []string{"VISIBLE", "auth.json", "workflows.db", "jetstream", "server.json", "trusted.json", "draft.go"}
	attacks := []string{
		"cat " + authFile,
		"rev " + authFile,
		"python3 -c 'print(open(\"" + authFile + "\").read())'",
		"base64 " + authFile,
		"fold -w 8 " + authFile,
		"test -e " + authFile + " && echo VISIBLE",
		"test -e " + store.Path(state) + " && echo VISIBLE",
		"ls -laR " + state,
		"find " + state,
		"grep -ra password " + state,
		"cat " + store.Path(state),
		"tar cf - " + state + " | strings",
		"cat " + filepath.Join(other.Worktree, "draft.go"),
		"ls -la " + repo.WorktreeRoot(),
		"cat " + filepath.Join(xdg, "autarch", "trusted.json"),
		"cat " + filepath.Join(xdg, "autarch", "mcp.json"),
		"cat ~/.config/autarch/config.yaml ~/.cache/autarch/index/x",
		"ls -laR ~ " + xdg,
	}
	roots := []struct {
		name string
		cfg  tools.SessionConfig
	}{
		{"the user's repository", tools.SessionConfig{Root: top}},
		{"a workflow's worktree", tools.SessionConfig{Root: wf.Worktree, GitCommonDir: repo.CommonDir()}},
	}
	for _, root := range roots {
		t.Run(root.name, func(t *testing.T) {
			call := shellSession(t, root.cfg)
			for _, c := range attacks {
				out := call(c)
				var res struct{ Stdout string }
				if err := json.Unmarshal([]byte(out), &res); err != nil {
					t.Fatalf("%q: %v: %s", c, err, out)
				}
				for _, s := range secrets {
					if strings.Contains(out, s) || strings.Contains(strings.ReplaceAll(res.Stdout, "\n", ""), s) {
						t.Errorf("%q revealed %q: %s", c, s, out)
					}
				}
				for _, n := range names {
					if strings.Contains(res.Stdout, n) {
						t.Errorf("%q listed %s: %s", c, n, out)
					}
				}
			}
			if out := call("echo mine > mine.txt && cat mine.txt main.go && git status --short"); !strings.Contains(out, "mine\\npackage main") || !strings.Contains(out, "?? mine.txt") {
				t.Errorf("the command's own tree is not usable: %s", out)
			}
		})
	}
	if data, _ := os.ReadFile(authFile); !strings.Contains(string(data), auth.Password) {
		t.Errorf("the credentials changed: %s", data)
	}
}

// shellSession returns a function running a shell command in a session
// of cfg, returning the tool's result.
func shellSession(t *testing.T, cfg tools.SessionConfig) func(command string) string {
	t.Helper()
	cfg.Role, cfg.Mode = "pulsing", tools.ModeYolo
	reg, err := tools.ForRole(cfg.Role, tools.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := tools.NewSession(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	e := tools.NewEngine(reg, nil, slog.New(slog.DiscardHandler))
	return func(command string) string {
		t.Helper()
		raw, _ := json.Marshal(map[string]any{"command": command, "reason": "test"})
		res, err := e.Call(context.Background(), s, "shell", raw)
		if err != nil {
			t.Fatalf("shell %q: %v", command, err)
		}
		return res.Output
	}
}

// shellText returns a function that runs a command through call (a
// shellSession) and returns its stdout and stderr together.
func shellText(t *testing.T, call func(string) string) func(string) string {
	return func(command string) string {
		t.Helper()
		out := call(command)
		var res struct{ Stdout, Stderr string }
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("%q: %v: %s", command, err, out)
		}
		return res.Stdout + res.Stderr
	}
}

func writeFile(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestAutarchServicesUnreachableWithNetwork: a command given the network
// (as a preflight is) shares the host's network namespace; it scans every
// listening TCP socket on the machine and every unix socket it can find
// for the project's NATS, which the swarm hosts in this process. None
// answers: the embedded server listens on no port, and its unix socket
// lives in the masked state directory. (Other packages' tests run NATS
// servers of their own at the same time: a server counts as the
// project's by its server id.)
func TestAutarchServicesUnreachableWithNetwork(t *testing.T) {
	ctx := context.Background()
	t.Setenv("HOME", t.TempDir())
	top := filepath.Join(t.TempDir(), "repo")
	writeFile(t, filepath.Join(top, "main.go"), "package main\n")
	repo := commitAll(t, top)
	conn, err := swarm.Connect(ctx, swarm.ConnOptions{StateDir: repo.StateDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if !conn.Hosting() {
		t.Fatal("this process does not host the project's NATS")
	}
	scan := `python3 - <<'PY'
import socket, glob, os
found = []
seen = 0
for table, fam in (("/proc/net/tcp", socket.AF_INET), ("/proc/net/tcp6", socket.AF_INET6)):
    try:
        rows = open(table).read().splitlines()[1:]
    except OSError:
        continue
    for row in rows:
        f = row.split()
        if f[3] != "0A":
            continue
        port = int(f[1].split(":")[1], 16)
        host = "127.0.0.1" if fam == socket.AF_INET else "::1"
        seen += 1
        try:
            s = socket.create_connection((host, port), timeout=1)
            s.settimeout(1)
            greeting = s.recv(4096)
            s.close()
        except OSError:
            continue
        if b"INFO" in greeting and b"autarch" in greeting:
            found.append("tcp %d %s" % (port, greeting[:300]))
for path in glob.glob("/proc/*/root/**/nats.sock", recursive=False) + glob.glob("/tmp/**/nats.sock", recursive=True) + glob.glob(os.path.expanduser("~") + "/**/nats.sock", recursive=True):
    try:
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(1)
        s.connect(path)
        greeting = s.recv(4096)
        if b"INFO" in greeting:
            found.append("unix %s %s" % (path, greeting[:300]))
    except OSError:
        pass
print("LISTENERS", seen)
print("FOUND", found)
PY`
	call := shellSession(t, tools.SessionConfig{Root: top, Commands: tools.CommandPolicy{Network: tools.NetworkAlways}})
	out := call(scan + "\ntest -e " + filepath.Join(repo.StateDir(), "nats", "nats.sock") + " && echo SOCKET-VISIBLE")
	var res struct{ Stdout string }
	if err := json.Unmarshal([]byte(out), &res); err != nil || !strings.Contains(res.Stdout, "LISTENERS") {
		t.Fatalf("the scan did not run: %v %s", err, out)
	}
	id := conn.NATS().ConnectedServerId()
	if id == "" || strings.Contains(res.Stdout, id) || strings.Contains(res.Stdout, "SOCKET-VISIBLE") {
		t.Errorf("a networked command reached the project's NATS (server id %q): %s", id, res.Stdout)
	}
}

// commitAll makes top a repository whose one commit holds its files.
func commitAll(t *testing.T, top string) *git.Repo {
	t.Helper()
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "init"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = top
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	repo, err := git.Open(context.Background(), top, git.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return repo
}
