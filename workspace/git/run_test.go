package git

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestHardEnvDropsWhatRedirectsGit: no inherited variable that makes git
// read other configuration, another repository or run a program reaches
// our git processes; what we set wins; the rest passes.
func TestHardEnvDropsWhatRedirectsGit(t *testing.T) {
	inherited := []string{
		"GIT_CONFIG_PARAMETERS='filter.x.clean'='touch /tmp/p'",
		"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=core.fsmonitor", "GIT_CONFIG_VALUE_0=touch /tmp/p",
		"GIT_CONFIG_GLOBAL=/tmp/evil", "GIT_CONFIG_SYSTEM=/tmp/evil", "GIT_CONFIG=/tmp/evil",
		"GIT_EXTERNAL_DIFF=touch /tmp/p", "GIT_PAGER=touch /tmp/p", "PAGER=touch /tmp/p",
		"GIT_ASKPASS=/tmp/p", "SSH_ASKPASS=/tmp/p", "GIT_SSH=/tmp/p", "GIT_SSH_COMMAND=/tmp/p",
		"GIT_EXEC_PATH=/tmp", "GIT_TEMPLATE_DIR=/tmp", "GIT_ALTERNATE_OBJECT_DIRECTORIES=/tmp",
		"GIT_DIR=/tmp/other", "GIT_WORK_TREE=/tmp", "GIT_COMMON_DIR=/tmp", "GIT_INDEX_FILE=/tmp/i",
		"GIT_OBJECT_DIRECTORY=/tmp", "GIT_CEILING_DIRECTORIES=", "GIT_DISCOVERY_ACROSS_FILESYSTEM=1",
		"GIT_ATTR_SOURCE=HEAD", "GIT_REPLACE_REF_BASE=refs/evil/", "GIT_SHALLOW_FILE=/tmp/s",
		"GIT_TRACE=/tmp/trace", "GIT_EDITOR=/tmp/p", "EDITOR=/tmp/p", "VISUAL=/tmp/p",
		"GIT_AUTHOR_NAME=Mallory", "GIT_COMMITTER_EMAIL=m@evil", "git_config_parameters=lower-case",
		"LC_ALL=xx_XX", "GIT_TERMINAL_PROMPT=1", "GIT_NO_REPLACE_OBJECTS=", "GIT_CONFIG_NOSYSTEM=0",
		"PATH=/usr/bin:/bin", "HOME=/home/u", "LANG=C.UTF-8", "GOFLAGS=-mod=mod", "MYGIT_THING=kept",
	}
	env := hardEnv(inherited, Identity{Name: "Bot", Email: "bot@x"})
	got := map[string][]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		got[k] = append(got[k], v)
	}
	want := map[string]string{
		"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.DevNull, "GIT_ATTR_NOSYSTEM": "1",
		"GIT_NO_REPLACE_OBJECTS": "1", "GIT_PROTOCOL_FROM_USER": "0", "GIT_TERMINAL_PROMPT": "0",
		"GIT_OPTIONAL_LOCKS": "0", "GIT_PAGER": "cat", "LC_ALL": "C",
		"GIT_AUTHOR_NAME": "Bot", "GIT_COMMITTER_EMAIL": "bot@x",
		"PATH": "/usr/bin:/bin", "HOME": "/home/u", "LANG": "C.UTF-8", "GOFLAGS": "-mod=mod", "MYGIT_THING": "kept",
	}
	for k, v := range want {
		if len(got[k]) != 1 || got[k][0] != v {
			t.Errorf("%s = %q, want exactly %q", k, got[k], v)
		}
	}
	for k := range got {
		if _, ok := want[k]; ok {
			continue
		}
		if strings.HasPrefix(strings.ToUpper(k), "GIT_") && !slices.Contains([]string{"GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME"}, k) {
			t.Errorf("inherited %s=%q reaches git", k, got[k])
		}
		if slices.Contains([]string{"PAGER", "SSH_ASKPASS", "EDITOR", "VISUAL"}, k) {
			t.Errorf("inherited %s reaches git", k)
		}
	}
}

// FuzzIsStripped: every variable git reads (GIT_*, in any case) is
// stripped; no other name is, but the few that name a program.
func FuzzIsStripped(f *testing.F) {
	for _, s := range []string{"GIT_DIR", "GIT_CONFIG_KEY_7", "git_pager", "Git_Ssh", "PATH", "GITHUB_TOKEN", "MY_GIT_X", "PAGER", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		got := isStripped(name)
		want := strings.HasPrefix(strings.ToUpper(name), "GIT_") ||
			slices.Contains([]string{"PAGER", "SSH_ASKPASS", "EDITOR", "VISUAL", "LC_ALL"}, name)
		if got != want {
			t.Fatalf("isStripped(%q) = %v, want %v", name, got, want)
		}
	})
}

// TestHardArgs: porcelain diff, log and show never run an external diff
// or a textconv driver; other commands are left alone.
func TestHardArgs(t *testing.T) {
	for _, tc := range []struct{ in, want []string }{
		{[]string{"diff", "HEAD"}, []string{"diff", "--no-ext-diff", "--no-textconv", "HEAD"}},
		{[]string{"log", "-1"}, []string{"log", "--no-ext-diff", "--no-textconv", "-1"}},
		{[]string{"show", "x"}, []string{"show", "--no-ext-diff", "--no-textconv", "x"}},
		{[]string{"status", "-z"}, []string{"status", "-z"}},
		{nil, nil},
	} {
		if got := hardArgs(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("hardArgs(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestUserConfigKeepsHarmlessGlobalSettings: the user's global excludes
// file still hides files from checkpoint commits, while the global file's
// drivers do not apply (the attack tests show that).
func TestUserConfigKeepsHarmlessGlobalSettings(t *testing.T) {
	ctx := context.Background()
	dir, _ := userRepo(t)
	excludes := filepath.Join(t.TempDir(), "ignore")
	writeFile(t, excludes, "*.secret-local\n")
	global := filepath.Join(t.TempDir(), "gitconfig")
	writeFile(t, global, "[core]\n\texcludesFile = "+excludes+"\n[filter \"x\"]\n\tclean = false\n")
	t.Setenv("GIT_CONFIG_GLOBAL", global)
	r := openRepo(t, dir)
	if !slices.Contains(r.git.user, "core.excludesfile="+excludes) || slices.ContainsFunc(r.git.user, func(s string) bool { return strings.HasPrefix(s, "filter.") }) {
		t.Fatalf("user settings = %q", r.git.user)
	}
	w := pulseStarted(t, r, "excl")
	writeFile(t, filepath.Join(w.Worktree, "mine.secret-local"), "x\n")
	writeFile(t, filepath.Join(w.Worktree, "kept.txt"), "x\n")
	cp, err := w.CompletePulse(ctx, "p1", "feat: x")
	if err != nil {
		t.Fatal(err)
	}
	tree := gitT(t, dir, "ls-tree", "-r", "--name-only", cp.Commit)
	if strings.Contains(tree, "mine.secret-local") || !strings.Contains(tree, "kept.txt") {
		t.Errorf("commit tree:\n%s", tree)
	}
}

// TestGitInTheCommonDir: plumbing run in the repository's git directory
// itself has no work tree; a folder outside every work tree is refused.
func TestGitInTheCommonDir(t *testing.T) {
	ctx := context.Background()
	dir, _ := userRepo(t)
	r := openRepo(t, dir)
	out, err := r.Git(ctx, r.CommonDir(), nil, "for-each-ref", "--format=%(refname)", "refs/heads/")
	if err != nil || strings.TrimSpace(string(out)) != "refs/heads/main" {
		t.Fatalf("for-each-ref in the git directory = %q, %v", out, err)
	}
	if out, err := r.Git(ctx, r.CommonDir(), nil, "rev-parse", "--absolute-git-dir"); err != nil || strings.TrimSpace(string(out)) != r.CommonDir() {
		t.Errorf("rev-parse in the git directory = %q, %v", out, err)
	}
	if _, err := r.Git(ctx, t.TempDir(), nil, "status"); err == nil || !strings.Contains(err.Error(), "in no work tree of the repository") {
		t.Errorf("git in a folder outside the repository: %v", err)
	}
}
