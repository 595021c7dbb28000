package tools

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// secretValue is the committed secret; no command may print it, nor its
// reverse.
const secretValue = "SECRET_VALUE_9d8c7b6a5f4e3d2c1b0a"

func reverse(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}

// gitCmd runs git for a test as the user would.
func gitCmd(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=User", "GIT_AUTHOR_EMAIL=user@example.com", "GIT_COMMITTER_NAME=User", "GIT_COMMITTER_EMAIL=user@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// secretTgz is a gzipped tar holding .env with the secret.
func secretTgz(t *testing.T) string {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	body := "API=" + secretValue + "\n"
	if err := tw.WriteHeader(&tar.Header{Name: "app/.env", Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
		t.Fatal(err)
	}
	tw.Write([]byte(body))
	tw.Close()
	zw.Close()
	return buf.String()
}

// secretHistoryRepo is a real repository whose history holds the secret:
// .env committed, renamed to an innocent name, deleted at HEAD; a tarball
// holding .env (committed and in the tree); packed objects and loose
// ones; a stash with an untracked .env.local.
func secretHistoryRepo(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "repo")
	gitCmd(t, t.TempDir(), "init", "-q", "-b", "main", dir)
	writeFiles(t, dir, map[string]string{
		"main.go": "package main\n\nfunc main() {}\n",
		".env":    "API=" + secretValue + "\n",
	})
	gitCmd(t, dir, "add", "-A")
	gitCmd(t, dir, "commit", "-q", "-m", "one: add .env")
	gitCmd(t, dir, "mv", ".env", "settings.conf")
	gitCmd(t, dir, "commit", "-q", "-m", "two: rename it")
	gitCmd(t, dir, "rm", "-q", "settings.conf")
	writeFiles(t, dir, map[string]string{"secrets.tgz": secretTgz(t), "main.go": "package main\n\nfunc main() { println(1) }\n"})
	gitCmd(t, dir, "add", "-A")
	gitCmd(t, dir, "commit", "-q", "-m", "three: delete it, add a tarball")
	gitCmd(t, dir, "gc", "-q")
	writeFiles(t, dir, map[string]string{"config/prod.env": "API=" + secretValue + "\n", "README.md": "# repo\n"})
	gitCmd(t, dir, "add", "-A")
	gitCmd(t, dir, "commit", "-q", "-m", "four: a loose secret")
	gitCmd(t, dir, "rm", "-q", "config/prod.env")
	gitCmd(t, dir, "commit", "-q", "-m", "five: remove it")
	writeFiles(t, dir, map[string]string{".env.local": "API=" + secretValue + "\n", "main.go": "package main\n\nfunc main() { println(2) }\n"})
	gitCmd(t, dir, "stash", "push", "-q", "--include-untracked")
	return dir
}

// objectAttacks try to get the secret out of git's objects, each with a
// transformation line redaction cannot see through.
var objectAttacks = []string{
	"git show HEAD~4:.env | rev",
	"git show HEAD~3:settings.conf | fold -w 8",
	"git log -p --all | fold -w 8",
	"git log -p --all --reverse | rev",
	"git cat-file --batch-all-objects --batch | strings | grep API | rev",
	"git cat-file --batch-all-objects --batch-check | cut -d' ' -f1 | git cat-file --batch | strings | grep -A1 API | fold -w 4",
	"for r in $(git rev-list --all); do git grep -h API $r; done | rev",
	"git fast-export --all | rev",
	"git bundle create - --all | strings | grep API | rev",
	"git bundle create /tmp/b.bundle --all; git clone -q /tmp/b.bundle /tmp/c && git -C /tmp/c log -p --all | rev",
	"git archive HEAD~4 | tar xO | rev",
	"git archive HEAD~2 | tar xO secrets.tgz | tar xzO | rev",
	"git stash show -p --include-untracked | rev; git show 'stash^3:.env.local' | rev",
	"find .git -type f | xargs cat | strings | grep API | rev",
	`python3 -c '
import os, zlib
seen = set()
for d, _, fs in os.walk(".git"):
    for f in fs:
        try: data = open(os.path.join(d, f), "rb").read()
        except Exception: continue
        for i in range(len(data)):
            if data[i] != 0x78: continue
            try: out = zlib.decompressobj().decompress(data[i:i+65536])
            except Exception: continue
            if b"API" in out and out not in seen:
                seen.add(out)
                print(out[::-1])
'`,
	"git verify-pack -v .git/objects/pack/*.idx | grep blob; cat .git/objects/pack/*.pack | strings | grep API | rev",
	"mkdir /tmp/u && cd /tmp/u && git init -q && for p in $OLDPWD/.git/objects/pack/*.pack; do git unpack-objects < $p; done; git cat-file --batch-all-objects --batch | strings | grep API | rev",
	"tar xOzf secrets.tgz | rev; cat secrets.tgz | gzip -dc | rev",
	"git -c core.alternateRefsCommand=true --no-replace-objects log -p --all -m | rev",
}

// TestCommittedSecretsNeverComeOut: whatever a command does with the
// repository's objects (in a normal repository and in a linked worktree),
// the committed secret and its reverse appear nowhere in its output;
// normal git reads still work, and a command that hits a withheld object
// is told why.
func TestCommittedSecretsNeverComeOut(t *testing.T) {
	for _, layout := range []string{"normal", "linked worktree"} {
		t.Run(layout, func(t *testing.T) {
			repo := secretHistoryRepo(t)
			root, cfg := repo, SessionConfig{Root: repo}
			if layout == "linked worktree" {
				root = filepath.Join(repo, ".git", "autarch", "worktrees", "w")
				gitCmd(t, repo, "worktree", "add", "-q", "-b", "autarch/w", root, "HEAD")
				cfg = SessionConfig{Root: root, GitCommonDir: filepath.Join(repo, ".git")}
			}
			h := newHarness(t, "pulsing", cfg)
			for _, c := range objectAttacks {
				res := h.call("shell", map[string]any{"command": c, "timeoutSeconds": 60})
				if leak := leaked(res.Output); leak != "" {
					t.Errorf("%q leaked %q:\n%.2000s", c, leak, res.Output)
				}
			}
			reads := []struct{ command, want string }{
				{"git status --short", "secrets.tgz"},
				{"git log --oneline", "five: remove it"},
				{"git log --name-status --format=%s", "settings.conf"},
				{"git diff HEAD~4 HEAD -- main.go", "+func main() { println(1) }"},
				{"git show HEAD~4:.env", "withheld from commands"},
				{"git log -p --format=%s | grep withheld", "+[Autarch: this file's content is withheld"},
				{"git log -p --format=%s -- main.go", "+func main() { println(1) }"},
				{"git blame main.go", "println"},
				{"git show HEAD:main.go", "println(1)"},
				{"git log --stat --format=%s -- main.go README.md", "README.md"},
			}
			if layout == "linked worktree" {
				reads[0].want = "" // the worktree is clean
			}
			for _, r := range reads {
				out := shellOutput(t, h, r.command)
				if out.ExitCode != 0 || !strings.Contains(out.Stdout, r.want) {
					t.Errorf("%q: exit %d, want %q in stdout:\n%s\n%s", r.command, out.ExitCode, r.want, out.Stdout, out.Stderr)
				}
			}
			out := shellOutput(t, h, "git --no-replace-objects show HEAD~4:.env")
			if out.ExitCode == 0 || !strings.Contains(out.Stderr, "withheld from commands") || !strings.Contains(out.Stderr, ".env") {
				t.Errorf("reading a withheld blob: exit %d, stderr lacks the explanation:\n%s", out.ExitCode, out.Stderr)
			}
		})
	}
}

// leaked names the form of the secret a shell result holds ("" for
// none), whatever the line breaks: the streams are decoded and every
// white space removed, so folded output counts.
func leaked(output string) string {
	var out shellOut
	if json.Unmarshal([]byte(output), &out) == nil {
		output += out.Stdout + out.Stderr
	}
	flat := strings.Join(strings.Fields(output), "")
	for _, leak := range []string{secretValue, reverse(secretValue), "9d8c7b6a5f4e3d2c1b0a", "a0b1c2d3e4f5a6b7c8d9"} {
		if strings.Contains(flat, leak) {
			return leak
		}
	}
	return ""
}

type shellOut struct {
	ExitCode int    `json:"exit_code"`
	Stdout   string `json:"stdout"`
	Stderr   string `json:"stderr"`
}

func shellOutput(t *testing.T, h *harness, command string) shellOut {
	t.Helper()
	res := h.call("shell", map[string]any{"command": command})
	var out shellOut
	if err := json.Unmarshal([]byte(res.Output), &out); err != nil {
		t.Fatalf("%q: %v: %s", command, err, res.Output)
	}
	return out
}

// TestSecretArchiveMasked: a tarball in the tree holding .env is masked for
// commands and refused by read_file, naming the entry.
func TestSecretArchiveMasked(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"dist/bundle.tgz": secretTgz(t), "main.go": "package main\n"})
	h := newHarness(t, "pulsing", SessionConfig{Root: dir})
	for _, c := range []string{"tar xOzf dist/bundle.tgz | rev", "gzip -dc < dist/bundle.tgz | strings | rev", "python3 -c 'import tarfile; t=tarfile.open(\"dist/bundle.tgz\"); print(t.extractfile(\"app/.env\").read()[::-1])'"} {
		res := h.call("shell", map[string]any{"command": c})
		if leaked(res.Output) != "" {
			t.Errorf("%q leaked the secret: %s", c, res.Output)
		}
	}
	res := h.call("read_file", map[string]any{"path": "dist/bundle.tgz"})
	if !res.Failed || !strings.Contains(res.Output, "app/.env") {
		t.Errorf("read_file of the tarball: %+v", res)
	}
}
