package sandbox

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/autarch-dev/autarch/internal/testkit"
)

// fixture is a fake home with credentials, a project and a sibling project.
type fixture struct {
	home, dir, other, extra string
	sb                      *Bwrap
}

const (
	sshKey     = "-----BEGIN OPENSSH PRIVATE KEY----- ssh-secret-0001"
	awsKey     = "aws_secret_access_key = aws-secret-0002"
	netrcLine  = "machine example.com login me password netrc-secret-0003"
	otherText  = "other-project-secret-0004"
	dotEnvText = "API_TOKEN=dotenv-secret-0005\nPASSWORD=dotenv-secret-0006\n"
)

// newFixture sets HOME to a fake home (never the real one) and builds the
// sandbox from it. bwrap must be installed: the tests do not skip.
func newFixture(t *testing.T) *fixture {
	t.Helper()
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Fatalf("bwrap not found (%v): these tests need bubblewrap, install it with apt-get install bubblewrap", err)
	}
	root := t.TempDir()
	f := &fixture{
		home:  filepath.Join(root, "home"),
		dir:   filepath.Join(root, "work", "project"),
		other: filepath.Join(root, "work", "other"),
		extra: filepath.Join(root, "extra"),
	}
	for p, content := range map[string]string{
		filepath.Join(f.home, ".ssh", "id_rsa"):          sshKey,
		filepath.Join(f.home, ".aws", "credentials"):     awsKey,
		filepath.Join(f.home, ".netrc"):                  netrcLine,
		filepath.Join(f.home, ".config", "gh", "hosts"):  "oauth_token: gh-secret-0007",
		filepath.Join(f.other, "secret.txt"):             otherText,
		filepath.Join(f.dir, "main.txt"):                 "hello",
		filepath.Join(f.dir, ".env"):                     dotEnvText,
		filepath.Join(f.dir, "secrets", "key.pem"):       "pem-secret-0008",
		filepath.Join(f.dir, ".autarch", "config.yaml"):  "hooks: []",
		filepath.Join(f.dir, ".autarch", "hooks", "pre"): "#!/bin/sh",
		filepath.Join(f.extra, "keep"):                   "",
	} {
		mustWrite(t, p, content)
	}
	t.Setenv("HOME", f.home)
	sb, err := NewBwrap(context.Background(), Options{})
	if err != nil {
		t.Fatalf("NewBwrap: %v", err)
	}
	f.sb = sb
	return f
}

func mustWrite(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) run(t *testing.T, spec Spec) Result {
	t.Helper()
	if spec.Dir == "" {
		spec.Dir = f.dir
	}
	if spec.Timeout == 0 {
		spec.Timeout = time.Minute
	}
	res, err := f.sb.Run(context.Background(), spec)
	if err != nil {
		t.Fatalf("Run(%q): %v", spec.Command, err)
	}
	return res
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

var gitIdentity = []string{"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com"}

func TestAttacksRefused(t *testing.T) {
	f := newFixture(t)
	leak := filepath.Join(os.TempDir(), fmt.Sprintf("autarch-sandbox-leak-%d", time.Now().UnixNano()))
	tests := []struct {
		name, command string
		wantFail      bool
		secret        string // must not appear in stdout or stderr
		hostCheck     func() error
	}{
		{"touch a sibling project", "touch ../other/x", true, "", absent(filepath.Join(f.other, "x"))},
		{"overwrite a sibling by absolute path", "echo x > " + filepath.Join(f.other, "secret.txt"), true, "", unchanged(filepath.Join(f.other, "secret.txt"), otherText)},
		{"read a sibling project", "cat " + filepath.Join(f.other, "secret.txt"), true, otherText, nil},
		{"list a sibling project", "ls " + f.other, true, "secret.txt", nil},
		{"read ~/.ssh/id_rsa", "cat ~/.ssh/id_rsa", true, "ssh-secret", nil},
		{"read ~/.aws/credentials", "cat ~/.aws/credentials", true, "aws-secret", nil},
		{"read ~/.netrc", "cat ~/.netrc", true, "netrc-secret", nil},
		{"read ~/.config", "cat ~/.config/gh/hosts", true, "gh-secret", nil},
		{"find in the home", "find ~ -type f 2>/dev/null | xargs cat 2>/dev/null; true", false, "secret-000", nil},
		{"read the home by absolute path", "cat " + filepath.Join(f.home, ".ssh", "id_rsa"), true, "ssh-secret", nil},
		{"write to the home stays private", "echo x > ~/planted", false, "", absent(filepath.Join(f.home, "planted"))},
		{"write to /tmp stays private", "echo x > " + leak, false, "", absent(leak)},
		{"write /usr", "touch /usr/planted", true, "", absent("/usr/planted")},
		{"write /etc", "echo x >> /etc/hosts", true, "", nil},
		{"read /etc/shadow", "cat /etc/shadow | grep root", true, "root:", nil},
		{"remount read-write", "mount -o remount,rw /usr", true, "", nil},
		{"symlink out of the project", "ln -s " + f.other + " link && cat link/secret.txt", true, otherText, nil},
		{"write the read-only .git", "echo x >> .git/config", true, "", nil},
		{"write .autarch", "echo x > .autarch/config.yaml", true, "", unchanged(filepath.Join(f.dir, ".autarch", "config.yaml"), "hooks: []")},
		{"plant a hook", "echo x > .autarch/hooks/pre", true, "", unchanged(filepath.Join(f.dir, ".autarch", "hooks", "pre"), "#!/bin/sh")},
		{"replace .autarch", "mv .autarch gone", true, "", nil},
		{"see other processes", "ps -e -o comm= 2>/dev/null | grep -v -e '^ps$' -e '^bash$' -e '^grep$' -e '^bwrap$'", true, "", nil},
	}
	if err := os.MkdirAll(filepath.Join(f.dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(f.dir, ".git", "config"), "[core]\n")
	rc, err := RepoPaths(f.dir, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := f.run(t, Spec{Command: tt.command, ReadOnly: rc.ReadOnly, Masked: rc.Masked})
			if tt.wantFail && res.ExitCode == 0 {
				t.Errorf("%q succeeded; stdout %q stderr %q", tt.command, res.Stdout, res.Stderr)
			}
			if !tt.wantFail && res.ExitCode != 0 {
				t.Errorf("%q failed (%d): %s", tt.command, res.ExitCode, res.Stderr)
			}
			if tt.secret != "" && (strings.Contains(res.Stdout, tt.secret) || strings.Contains(res.Stderr, tt.secret)) {
				t.Errorf("%q revealed %q: %q", tt.command, tt.secret, res.Stdout)
			}
			if tt.hostCheck != nil {
				if err := tt.hostCheck(); err != nil {
					t.Error(err)
				}
			}
		})
	}
	if b, err := os.ReadFile(filepath.Join(f.dir, ".git", "config")); err != nil || string(b) != "[core]\n" {
		t.Errorf(".git/config changed: %q, %v", b, err)
	}
}

func absent(p string) func() error {
	return func() error {
		if _, err := os.Lstat(p); err == nil {
			os.Remove(p)
			return fmt.Errorf("%s was created on the host", p)
		}
		return nil
	}
}

func unchanged(p, want string) func() error {
	return func() error {
		b, err := os.ReadFile(p)
		if err != nil || string(b) != want {
			return fmt.Errorf("%s changed: %q, %v", p, b, err)
		}
		return nil
	}
}

func TestSymlinkedReadOnlyPathExposesNothing(t *testing.T) {
	f := newFixture(t)
	if err := os.RemoveAll(filepath.Join(f.dir, ".autarch")); err != nil {
		t.Fatal(err)
	}
	// A command planted .autarch -> ~/.ssh; the next command's read-only
	// bind of .autarch must not bind the link's target into the sandbox.
	if err := os.Symlink(filepath.Join(f.home, ".ssh"), filepath.Join(f.dir, ".autarch")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(f.home, ".aws", "credentials"), filepath.Join(f.dir, "creds")); err != nil {
		t.Fatal(err)
	}
	res := f.run(t, Spec{Command: "cat .autarch/id_rsa creds", ReadOnly: []string{".autarch"}, Masked: []string{"creds"}})
	if res.ExitCode == 0 || strings.Contains(res.Stdout, "secret") {
		t.Errorf("symlinked paths revealed: exit %d, %q", res.ExitCode, res.Stdout)
	}
}

func TestMaskedReadsEmpty(t *testing.T) {
	f := newFixture(t)
	secrets := []string{"dotenv-secret", "pem-secret", base64.StdEncoding.EncodeToString([]byte(dotEnvText))[:12]}
	tests := []struct{ name, command string }{
		{"cat", "cat .env"},
		{"base64", "base64 .env"},
		{"tail", "tail -n +2 .env"},
		{"grep each char", "grep -o . .env"},
		{"copy then cat", "cp .env /tmp/c && cat /tmp/c"},
		{"od", "od -c .env | grep -v '^0000000$'"},
		{"dd", "dd if=.env status=none"},
		{"python", "python3 -c 'print(open(\".env\").read(), end=\"\")'"},
		{"masked directory listing", "ls -A secrets"},
		{"masked directory file", "cat secrets/key.pem"},
		{"append then read", "echo more >> .env; cat .env"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := f.run(t, Spec{Command: tt.command, Masked: []string{".env", filepath.Join(f.dir, "secrets"), "missing.key"}})
			if strings.TrimSpace(res.Stdout) != "" {
				t.Errorf("%q printed %q", tt.command, res.Stdout)
			}
			for _, s := range secrets {
				if strings.Contains(res.Stdout+res.Stderr, s) {
					t.Errorf("%q revealed %q", tt.command, s)
				}
			}
		})
	}
	if b, _ := os.ReadFile(filepath.Join(f.dir, ".env")); string(b) != dotEnvText {
		t.Errorf(".env changed on the host: %q", b)
	}
}

func TestWritableExtras(t *testing.T) {
	f := newFixture(t)
	res := f.run(t, Spec{Command: "echo ok > " + filepath.Join(f.extra, "new") + " && echo ok > here", Writable: []string{f.extra}})
	if res.ExitCode != 0 {
		t.Fatalf("writing a writable extra failed: %s", res.Stderr)
	}
	for _, p := range []string{filepath.Join(f.extra, "new"), filepath.Join(f.dir, "here")} {
		if b, err := os.ReadFile(p); err != nil || string(b) != "ok\n" {
			t.Errorf("%s: %q, %v", p, b, err)
		}
	}
	// Without it, the extra directory is invisible.
	res = f.run(t, Spec{Command: "ls " + f.extra})
	if res.ExitCode == 0 {
		t.Errorf("extra directory visible without being asked for: %q", res.Stdout)
	}
}

func TestTimeoutKillsEverything(t *testing.T) {
	f := newFixture(t)
	marker := fmt.Sprintf("%d", 900000+time.Now().UnixNano()%99999)
	start := time.Now()
	res := f.run(t, Spec{
		Command: "setsid sleep " + marker + " & (trap '' TERM HUP; sleep " + marker + ") & nohup sleep " + marker + " >/dev/null 2>&1 & sleep 1000",
		Timeout: 500 * time.Millisecond,
	})
	if !res.TimedOut || res.ExitCode != -1 {
		t.Errorf("want a timeout, got %+v", res)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Run took %v after a 500ms timeout", d)
	}
	testkit.CheckFor(t, 3*time.Second, 50*time.Millisecond, func() error {
		if pids := processesWith("sleep\x00" + marker + "\x00"); len(pids) > 0 {
			return fmt.Errorf("processes survived the timeout: %v", pids)
		}
		return nil
	})
}

// processesWith returns the pids whose command line contains s.
func processesWith(s string) []string {
	ents, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(b)+"\x00", s) {
			out = append(out, e.Name())
		}
	}
	return out
}

func TestNetwork(t *testing.T) {
	f := newFixture(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	cmd := fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d && echo connected", port)
	tests := []struct {
		network bool
		want    bool
	}{{false, false}, {true, true}}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("network=%v", tt.network), func(t *testing.T) {
			res := f.run(t, Spec{Command: cmd, Network: tt.network})
			if got := strings.Contains(res.Stdout, "connected"); got != tt.want {
				t.Errorf("connected = %v, want %v (exit %d, %s)", got, tt.want, res.ExitCode, res.Stderr)
			}
		})
	}
	res := f.run(t, Spec{Command: "curl -sS --max-time 5 http://127.0.0.1:" + fmt.Sprint(port)})
	if res.ExitCode == 0 {
		t.Errorf("curl reached the host's loopback without network")
	}
}

func TestEnvironmentScrubbed(t *testing.T) {
	f := newFixture(t)
	t.Setenv("OPENAI_API_KEY", "sk-secret-openai")
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-secret")
	t.Setenv("AUTARCH_EMBEDDINGS_API_KEY", "emb-secret")
	t.Setenv("GITHUB_TOKEN", "ghp_secret")
	t.Setenv("SSH_AUTH_SOCK", "/tmp/agent.sock")
	t.Setenv("DATABASE_URL", "postgres://u:pw-secret@db/x")
	t.Setenv("LANG", "C.UTF-8")
	res := f.run(t, Spec{Command: "echo \"[$OPENAI_API_KEY]\"; env | grep -i -e key -e token -e secret -e auth; echo HOME=$HOME; echo LANG=$LANG; echo EXTRA=$EXTRA", Env: []string{"EXTRA=yes"}})
	if strings.Contains(res.Stdout, "secret") || !strings.Contains(res.Stdout, "[]") {
		t.Errorf("credentials reached the command:\n%s", res.Stdout)
	}
	for _, want := range []string{"HOME=" + f.home, "LANG=C.UTF-8", "EXTRA=yes"} {
		if !strings.Contains(res.Stdout, want+"\n") {
			t.Errorf("missing %s in\n%s", want, res.Stdout)
		}
	}
}

func TestScrubEnv(t *testing.T) {
	tests := []struct {
		kv   string
		keep bool
	}{
		{"OPENAI_API_KEY=x", false},
		{"ANTHROPIC_API_KEY=x", false},
		{"AUTARCH_EMBEDDINGS_API_KEY=x", false},
		{"AUTARCH_TOKEN=x", false},
		{"AUTARCH_MODEL=x", false},
		{"AUTARCH_SANDBOX_DEBUG=1", false},
		{"GITHUB_TOKEN=x", false},
		{"npm_config__authToken=x", false},
		{"AWS_SECRET_ACCESS_KEY=x", false},
		{"AWS_SESSION_TOKEN=x", false},
		{"PGPASSWORD=x", false},
		{"MYSQL_PWD_PASSWD=x", false},
		{"GPG_PASSPHRASE=x", false},
		{"GOOGLE_APPLICATION_CREDENTIALS=/x.json", false},
		{"SSH_AUTH_SOCK=/tmp/s", false},
		{"DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/1000/bus", false},
		{"XAUTHORITY=/x", false},
		{"DISPLAY=:0", false},
		{"COOKIE_JAR=x", false},
		{"private_thing=x", false},
		{"BASH_ENV=/x", false},
		{"BASH_FUNC_f%%=() { :; }", false},
		{"DATABASE_URL=postgres://user:pw@host/db", false},
		{"HTTPS_PROXY=http://u:p@proxy:3128", true}, // kept, without u:p (env_test.go)
		{"HTTPS_PROXY=http://proxy:3128", true},
		{"GIT_AUTHOR_NAME=me", true},
		{"GIT_COMMITTER_EMAIL=me@x", true},
		{"XDG_SESSION_TYPE=wayland", false},
		{"PATH=/usr/bin", true},
		{"HOME=/home/u", true},
		{"LANG=C", true},
		{"TERM=xterm", true},
		{"GOPATH=/go", true},
		{"EMPTY=", false},
		{"LANG=", true},
		{"=nameless", false},
		{"noequals", false},
	}
	for _, tt := range tests {
		got := ScrubEnv([]string{tt.kv})
		if kept := len(got) == 1; kept != tt.keep {
			t.Errorf("ScrubEnv(%q) kept = %v, want %v", tt.kv, kept, tt.keep)
		}
	}
	if got := ScrubEnv([]string{"TERM=1", "KEY=x", "LANG=2"}); !slices.Equal(got, []string{"TERM=1", "LANG=2"}) {
		t.Errorf("order not kept: %v", got)
	}
}

func TestToolsWork(t *testing.T) {
	f := newFixture(t)
	git(t, f.dir, "init", "-q")
	git(t, f.dir, "add", "main.txt")
	git(t, f.dir, "commit", "-qm", "init")
	rc, err := RepoPaths(f.dir, "")
	if err != nil {
		t.Fatal(err)
	}
	ro := rc.ReadOnly
	tests := []struct{ command, want string }{
		{"go version", "go version go"},
		{"git status --short --branch", "## main"},
		{"git log --oneline", "init"},
		{"ls", "main.txt"},
		{"python3 --version", "Python 3"},
		{"echo $GOTOOLCHAIN", "local"},
	}
	for _, tt := range tests {
		t.Run(tt.command, func(t *testing.T) {
			res := f.run(t, Spec{Command: tt.command, ReadOnly: ro, Caches: f.sb.DefaultCaches()})
			if res.ExitCode != 0 || !strings.Contains(res.Stdout, tt.want) {
				t.Errorf("%q: exit %d, stdout %q, stderr %q", tt.command, res.ExitCode, res.Stdout, res.Stderr)
			}
		})
	}
	// git can read the read-only repository but not commit into it.
	res := f.run(t, Spec{Command: "echo y > y && git add y", ReadOnly: ro, Env: gitIdentity})
	if res.ExitCode == 0 {
		t.Errorf("git add wrote the read-only .git")
	}
}

func TestGoBuildWithCaches(t *testing.T) {
	f := newFixture(t)
	mustWrite(t, filepath.Join(f.dir, "go.mod"), "module example.com/p\n\ngo 1.21\n")
	mustWrite(t, filepath.Join(f.dir, "p.go"), "package p\n\nfunc F() int { return 1 }\n")
	mustWrite(t, filepath.Join(f.dir, "p_test.go"), "package p\n\nimport \"testing\"\n\nfunc TestF(t *testing.T) { if F() != 1 { t.Fatal() } }\n")
	own, buildCache := filepath.Join(t.TempDir(), "own"), filepath.Join(t.TempDir(), "gocache")
	tests := []struct {
		name string
		spec Spec
	}{
		{"read-only caches, private build cache", Spec{Command: "go vet . && go build ./... && echo built"}},
		{"read-only caches, the repository's own caches", Spec{Command: "go test -count=1 . && echo built", OwnCaches: own, BuildCache: buildCache}},
		{"preflight: network, the repository's own caches", Spec{Command: "go build ./... && echo built", OwnCaches: own, BuildCache: buildCache, Network: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.spec.Caches = f.sb.DefaultCaches()
			tt.spec.Timeout = 5 * time.Minute
			res := f.run(t, tt.spec)
			if res.ExitCode != 0 || !strings.Contains(res.Stdout, "built") {
				t.Errorf("exit %d, stdout %q, stderr %q", res.ExitCode, res.Stdout, res.Stderr)
			}
		})
	}
	if ents, err := os.ReadDir(buildCache); err != nil || len(ents) == 0 {
		t.Errorf("the build cache was not filled: %v", err)
	}
}

// TestUserCachesNeverWritable: no command, preflight (network) included,
// can write the user's own caches; it writes the repository's own, and
// each tool is pointed at its own (redteam s10, 04 and 05: a planted
// build cache entry or module source ran in the user's own builds).
func TestUserCachesNeverWritable(t *testing.T) {
	f := newFixture(t)
	caches := f.sb.DefaultCaches()
	if len(caches) == 0 {
		t.Skip("no user caches here")
	}
	own, buildCache := filepath.Join(t.TempDir(), "own"), filepath.Join(t.TempDir(), "gocache")
	var cmd strings.Builder
	for _, c := range caches {
		fmt.Fprintf(&cmd, "touch %q/planted 2>/dev/null && echo WROTE %q; ", c, c)
	}
	cmd.WriteString(`echo "GOCACHE=$GOCACHE npm=$npm_config_cache pip=$PIP_CACHE_DIR yarn=$YARN_CACHE_FOLDER"; touch "$npm_config_cache/x" && echo own-writable`)
	for _, network := range []bool{false, true} {
		res := f.run(t, Spec{Command: cmd.String(), Caches: caches, OwnCaches: own, BuildCache: buildCache, Network: network})
		if strings.Contains(res.Stdout, "WROTE") {
			t.Errorf("network %v: a command wrote a user cache: %s", network, res.Stdout)
		}
		for _, want := range []string{"GOCACHE=" + buildCache, "npm=" + filepath.Join(own, "npm"), "pip=" + filepath.Join(own, "pip"),
			"yarn=" + filepath.Join(own, "yarn"), "own-writable"} {
			if !strings.Contains(res.Stdout, want) {
				t.Errorf("network %v: want %q in %s (stderr %s)", network, want, res.Stdout, res.Stderr)
			}
		}
	}
}

// TestLinkedWorktree: in a linked worktree git reads the repository but
// writes nothing of it, not even the worktree's own HEAD and index; the
// common dir's configuration and hooks, the .git file and the main work
// tree stay out of reach.
func TestLinkedWorktree(t *testing.T) {
	f := newFixture(t)
	root := t.TempDir()
	repo, wt := filepath.Join(root, "repo"), filepath.Join(root, "worktrees", "feature")
	mustWrite(t, filepath.Join(repo, "a.txt"), "a")
	git(t, repo, "init", "-q")
	git(t, repo, "add", "a.txt")
	git(t, repo, "commit", "-qm", "init")
	git(t, repo, "worktree", "add", "-q", "-b", "feature", wt)
	common := filepath.Join(repo, ".git")
	mustWrite(t, filepath.Join(common, "hooks", "pre-commit"), "#!/bin/sh\nexit 0\n")
	configBefore, err := os.ReadFile(filepath.Join(common, "config"))
	if err != nil {
		t.Fatal(err)
	}
	rc, err := RepoPaths(wt, common)
	if err != nil {
		t.Fatal(err)
	}
	spec := func(cmd string) Spec {
		return Spec{Dir: wt, ReadOnly: rc.ReadOnly, Masked: rc.Masked, Env: gitIdentity, Command: cmd}
	}
	res := f.run(t, spec("git status --short --branch && git log --oneline -1 && echo x > x && git diff --stat HEAD"))
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "## feature") || !strings.Contains(res.Stdout, " init") {
		t.Fatalf("git cannot read the worktree: exit %d, %q, %q", res.ExitCode, res.Stdout, res.Stderr)
	}
	wtGit := filepath.Join(common, "worktrees", "feature")
	attacks := []string{
		"git add x",
		"git commit -qm m --allow-empty",
		"git checkout -q --detach",
		"git symbolic-ref HEAD refs/heads/main",
		"echo '[core]hooksPath=/tmp' >> " + filepath.Join(common, "config"),
		"echo x > " + filepath.Join(common, "hooks", "pre-commit"),
		"echo x > " + filepath.Join(common, "hooks", "post-commit"),
		"echo x > " + filepath.Join(common, "info", "attributes"),
		"echo 'gitdir: /tmp/evil' > .git",
		"echo /tmp/evil > " + filepath.Join(wtGit, "commondir"),
		"echo x > " + filepath.Join(wtGit, "autarch-artifacts"),
		"git config core.fsmonitor 'touch /tmp/pwned'",
		"ls " + repo + "/a.txt",
	}
	for _, cmd := range attacks {
		res := f.run(t, spec(cmd))
		if res.ExitCode == 0 {
			t.Errorf("%q succeeded", cmd)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(common, "config")); string(b) != string(configBefore) {
		t.Errorf("common config changed: %q", b)
	}
	if head, _ := os.ReadFile(filepath.Join(wtGit, "HEAD")); string(head) != "ref: refs/heads/feature\n" {
		t.Errorf("the worktree's HEAD changed: %q", head)
	}
	// The worktree's .git may only name a gitdir of this repository.
	mustWrite(t, filepath.Join(root, "evil", ".git"), "gitdir: "+filepath.Join(f.home, ".ssh")+"\n")
	if _, err := RepoPaths(filepath.Join(root, "evil"), common); err == nil {
		t.Error("RepoPaths accepted a gitdir outside the repository")
	}
	if _, err := RepoPaths(wt, ""); err == nil {
		t.Error("RepoPaths accepted a linked worktree without the repository's git directory")
	}
}

func TestBadSpecs(t *testing.T) {
	f := newFixture(t)
	file := filepath.Join(f.dir, "main.txt")
	tests := []struct {
		name string
		spec Spec
	}{
		{"no dir", Spec{Command: "true"}},
		{"relative dir", Spec{Dir: "project", Command: "true"}},
		{"root dir", Spec{Dir: "/", Command: "true"}},
		{"/tmp", Spec{Dir: "/tmp", Command: "true"}},
		{"the home", Spec{Dir: f.home, Command: "true"}},
		{"an ancestor of the home", Spec{Dir: filepath.Dir(f.home), Command: "true"}},
		{"missing dir", Spec{Dir: filepath.Join(f.dir, "nope"), Command: "true"}},
		{"a file", Spec{Dir: file, Command: "true"}},
		{"under ~/.ssh", Spec{Dir: filepath.Join(f.home, ".ssh"), Command: "true"}},
		{"writable /etc", Spec{Dir: f.dir, Command: "true", Writable: []string{"/etc"}}},
		{"writable home", Spec{Dir: f.dir, Command: "true", Writable: []string{f.home}}},
		{"bad env", Spec{Dir: f.dir, Command: "true", Env: []string{"NOEQUALS"}}},
		{"NUL in command", Spec{Dir: f.dir, Command: "true\x00"}},
		{"negative timeout", Spec{Dir: f.dir, Command: "true", Timeout: -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := f.sb.Run(context.Background(), tt.spec); err == nil {
				t.Errorf("Run accepted %+v", tt.spec)
			}
		})
	}
}

func TestExitCodeAndOutput(t *testing.T) {
	f := newFixture(t)
	for _, sb := range []Sandbox{f.sb, Unconfined{}} {
		res, err := sb.Run(context.Background(), Spec{Dir: f.dir, Command: "echo out; echo err >&2; exit 3", Timeout: time.Minute})
		if err != nil || res.ExitCode != 3 || res.Stdout != "out\n" || res.Stderr != "err\n" || res.TimedOut {
			t.Errorf("%s: %+v, %v", sb.Name(), res, err)
		}
		res, err = sb.Run(context.Background(), Spec{Dir: f.dir, Command: "head -c 100000 /dev/zero | tr '\\0' a", MaxOutput: 1000})
		if err != nil || len(res.Stdout) > 1100 || !strings.Contains(res.Stdout, "dropped") {
			t.Errorf("%s: output not capped: %d bytes, %v", sb.Name(), len(res.Stdout), err)
		}
	}
}

func TestCancelledContext(t *testing.T) {
	f := newFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	_, err := f.sb.Run(ctx, Spec{Dir: f.dir, Command: "sleep 100"})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("want context.Canceled, got %v", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Errorf("cancel took %v", time.Since(start))
	}
}

func TestUnconfined(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("OPENAI_API_KEY", "sk-secret")
	u := Unconfined{}
	if !strings.Contains(u.Name(), "unconfined") || u.Confined() {
		t.Errorf("Unconfined must say so: %q", u.Name())
	}
	res, err := u.Run(context.Background(), Spec{Dir: dir, Command: "pwd; echo \"[$OPENAI_API_KEY]\"", Timeout: time.Minute})
	if err != nil || res.ExitCode != 0 || res.Stdout != dir+"\n[]\n" {
		t.Errorf("%+v, %v", res, err)
	}
	res, err = u.Run(context.Background(), Spec{Dir: dir, Command: "sleep 100", Timeout: 200 * time.Millisecond})
	if err != nil || !res.TimedOut {
		t.Errorf("no timeout: %+v, %v", res, err)
	}
	if _, err := u.Run(context.Background(), Spec{Dir: "relative", Command: "true"}); err == nil {
		t.Error("relative dir accepted")
	}
}

func TestProbeAndReport(t *testing.T) {
	f := newFixture(t)
	st := f.sb.Probe(context.Background())
	if !st.Available || !strings.HasPrefix(st.Version, "bubblewrap ") {
		t.Fatalf("probe: %s", st)
	}
	rep := f.sb.Report(context.Background())
	for _, want := range []string{"mechanism: bubblewrap", "version: bubblewrap", "namespaces: ok", "writable:", "read-only:", "masked", "network:"} {
		if !strings.Contains(rep, want) {
			t.Errorf("report lacks %q:\n%s", want, rep)
		}
	}
	sb, st, err := Select(context.Background(), Options{}, false)
	if err != nil || !sb.Confined() || !st.Available {
		t.Errorf("Select: %v, %s, %v", sb, st, err)
	}
}

func TestDetectWithoutBwrap(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	b, st := Detect(context.Background(), Options{})
	if b != nil || st.Available || !strings.Contains(st.Reason, "apt-get install bubblewrap") {
		t.Errorf("Detect without bwrap: %s", st)
	}
	if _, _, err := Select(context.Background(), Options{}, false); err == nil {
		t.Error("Select fell back to unconfined without the user's consent")
	}
	sb, _, err := Select(context.Background(), Options{}, true)
	if err != nil || sb.Confined() {
		t.Errorf("Select with consent: %v, %v", sb, err)
	}
}

func TestExplain(t *testing.T) {
	tests := []struct{ stderr, want string }{
		{"bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces.", "user namespaces are refused"},
		{"bwrap: setting up uid map: Permission denied", "user namespaces are refused"},
		{"bwrap: Unknown option --unshare-cgroup-try", "too old"},
		{"something else", "trial command failed"},
	}
	for _, tt := range tests {
		if got := explain(tt.stderr, 1); !strings.Contains(got, tt.want) {
			t.Errorf("explain(%q) = %q", tt.stderr, got)
		}
	}
}

func TestCapped(t *testing.T) {
	tests := []struct {
		writes []string
		limit  int
		want   string
	}{
		{[]string{"abc"}, 100, "abc"},
		{[]string{"0123456789"}, 8, "01\n…[2 bytes of output dropped]…\n456789"},
		{[]string{"01", "23", "45", "67", "89"}, 8, "01\n…[2 bytes of output dropped]…\n456789"},
		{[]string{"01234567"}, 8, "01234567"},
	}
	for _, tt := range tests {
		c := newCapped(tt.limit)
		for _, w := range tt.writes {
			c.Write([]byte(w))
		}
		if got := c.String(); got != tt.want {
			t.Errorf("capped(%v, %d) = %q, want %q", tt.writes, tt.limit, got, tt.want)
		}
	}
}
