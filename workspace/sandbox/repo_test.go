package sandbox

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gitrepo "github.com/autarch-dev/autarch/workspace/git"
)

// repoFixture is a user's repository with a workflow's linked worktree
// made as workflows make it (a running pulse), a second workflow, a
// packed and a loose copy of every object, packed refs and reflogs.
type repoFixture struct {
	top, common string
	wf, wf2     *gitrepo.Workflow
	other       string // a commit no ref of the workflows points at
}

func newRepoFixture(t *testing.T) repoFixture {
	t.Helper()
	ctx := context.Background()
	top := filepath.Join(t.TempDir(), "repo")
	mustWrite(t, filepath.Join(top, "a.txt"), "a\n")
	git(t, top, "init", "-q")
	git(t, top, "add", "a.txt")
	git(t, top, "commit", "-qm", "init")
	git(t, top, "checkout", "-qb", "other")
	mustWrite(t, filepath.Join(top, "b.txt"), "b\n")
	git(t, top, "add", "b.txt")
	git(t, top, "commit", "-qm", "other")
	git(t, top, "checkout", "-q", "main")
	git(t, top, "tag", "v1", "main")
	repo, err := gitrepo.Open(ctx, top, gitrepo.Config{})
	if err != nil {
		t.Fatal(err)
	}
	wf, err := repo.CreateWorkflow(ctx, "wf", "main")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := wf.StartPulse(ctx, "p1"); err != nil {
		t.Fatal(err)
	}
	wf2, err := repo.CreateWorkflow(ctx, "wf2", "main")
	if err != nil {
		t.Fatal(err)
	}
	git(t, top, "pack-refs", "--all")
	git(t, top, "repack", "-a", "-q") // a pack, and the loose objects kept
	other := strings.TrimSpace(git(t, top, "rev-parse", "other"))
	return repoFixture{top: top, common: repo.CommonDir(), wf: wf, wf2: wf2, other: other}
}

// state is everything of the user's repository an agent could change:
// every ref (for-each-ref, every worktree's HEAD), git fsck --full, and
// the bytes of every file of the common dir but Autarch's state (which
// holds the worktrees' files), with the objects directory's listing.
func (r repoFixture) state(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(git(t, r.top, "for-each-ref", "--format=%(refname) %(objectname) %(symref)"))
	b.WriteString(git(t, r.top, "worktree", "list", "--porcelain"))
	b.WriteString(git(t, r.top, "fsck", "--full", "--no-dangling", "--no-progress"))
	err := filepath.WalkDir(r.common, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(r.common, p)
		if rel == "autarch" {
			return fs.SkipDir
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %v %d", rel, fi.Mode(), fi.Size())
		if d.Type().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(&b, " %x", sha256.Sum256(data))
		}
		b.WriteByte('\n')
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestUserRepositoryReadOnly: whatever a command in a workflow's linked
// worktree does with git or with the files of the repository, every ref,
// packed-refs, every object, the reflogs, the configuration and the
// worktrees' own HEAD and index stay byte-identical and git fsck finds
// nothing new, while the worktree's files stay writable.
func TestUserRepositoryReadOnly(t *testing.T) {
	f := newFixture(t)
	// spec confines a command in r's workflow worktree as sessions do.
	spec := func(t *testing.T, r repoFixture, cmd string) Spec {
		t.Helper()
		rc, err := RepoPaths(r.wf.Worktree, r.common)
		if err != nil {
			t.Fatal(err)
		}
		wtGit := filepath.Join(r.common, "worktrees", filepath.Base(r.wf.Worktree))
		return Spec{Dir: r.wf.Worktree, ReadOnly: rc.ReadOnly, Masked: rc.Masked, Env: append(gitIdentity, "C="+r.common, "W="+wtGit, "O="+r.other), Command: cmd}
	}
	r := newRepoFixture(t)
	res := f.run(t, spec(t, r, "echo new > new.txt && git status --porcelain && git log --oneline -1 main && git cat-file -p $O && cat new.txt"))
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "?? new.txt") || !strings.Contains(res.Stdout, "init") {
		t.Fatalf("git cannot read the worktree, or the worktree is not writable: exit %d, %q, %q", res.ExitCode, res.Stdout, res.Stderr)
	}
	attacks := []struct{ name, command string }{
		{"update-ref main", "git update-ref refs/heads/main $O"},
		{"update-ref own workflow branch", "git update-ref refs/heads/" + r.wf.Branch + " $O"},
		{"update-ref own pulse branch", "git update-ref HEAD $O"},
		{"update-ref another workflow's branch", "git update-ref refs/heads/" + r.wf2.Branch + " $O"},
		{"delete a ref", "git update-ref -d refs/heads/other"},
		{"branch -f main", "git branch -f main $O"},
		{"reset own branch", "git reset -q --soft $O"},
		{"fetch into main", "git fetch -q . other:main"},
		{"push into main", "git push -q . other:main"},
		{"replace ref", "git replace main $O"},
		{"replace ref by hand", "mkdir -p $C/refs/replace && echo $O > $C/refs/replace/$(git rev-parse main)"},
		{"write a loose ref", "echo $O > $C/refs/heads/main"},
		{"tag", "git tag -f v1 $O"},
		{"notes", "git notes add -m x main"},
		{"stash", "echo x >> a.txt && git stash -q"},
		{"commit", "git commit -q --allow-empty -m x"},
		{"add", "echo x > x.txt && git add x.txt"},
		{"new branch", "git checkout -qb mine"},
		{"append to packed-refs", "echo \"$O refs/heads/main\" >> $C/packed-refs"},
		{"rewrite packed-refs", "sed -i s/^/x/ $C/packed-refs"},
		{"replace packed-refs", "cp $C/packed-refs /tmp/p && mv /tmp/p $C/packed-refs"},
		{"delete loose objects", "find $C/objects -type f -path '*/objects/??/*' -delete"},
		{"overwrite loose objects", "for o in $(find $C/objects -type f -path '*/objects/??/*'); do echo x > $o; done; exit 1"},
		{"write a new object", "echo new | git hash-object -w --stdin"},
		{"write into a pack", "for p in $C/objects/pack/*.pack; do printf x | dd of=$p bs=1 seek=100 conv=notrunc status=none; done"},
		{"delete a pack", "rm -f $C/objects/pack/*"},
		{"alternates", "echo /tmp > $C/objects/info/alternates"},
		{"reflog expire", "git reflog expire --expire=now --all"},
		{"reflog delete", "git reflog delete HEAD@{0}"},
		{"delete reflogs", "rm -rf $C/logs"},
		{"gc", "git gc -q --prune=now"},
		{"prune", "git prune --expire=now"},
		{"repack", "git repack -a -d -q"},
		{"worktree add", "git worktree add -q /tmp/wt main"},
		{"worktree remove", "git worktree remove --force " + r.wf2.Worktree},
		{"worktree prune", "git worktree prune"},
		{"config", "git config user.name x"},
		{"config core.fsmonitor", "git config core.fsmonitor 'touch /tmp/pwned'"},
		{"config worktree", "git config --worktree core.hooksPath /tmp"},
		{"config include", "echo '[include]path=/tmp/x' >> $C/config"},
		{"symbolic-ref HEAD", "git symbolic-ref HEAD refs/heads/main"},
		{"symbolic-ref new", "git symbolic-ref refs/heads/alias refs/heads/main"},
		{"detach HEAD", "git checkout -q --detach"},
		{"write own HEAD", "echo $O > $W/HEAD"},
		{"write own index", "cp $W/index /tmp/i && git update-index --assume-unchanged a.txt"},
		{"truncate own index", ": > $W/index"},
		{"recorded artifacts", "echo a.txt > $W/autarch-artifacts"},
		{"commondir", "echo /tmp > $W/commondir"},
		{"gitdir file", "echo 'gitdir: /tmp' > .git"},
		{"hook", "echo 'touch /tmp/pwned' > $C/hooks/post-checkout"},
		{"info attributes", "echo '* filter=x' > $C/info/attributes"},
		{"shallow", "echo $O > $C/shallow"},
		{"remove the common dir", "rm -rf $C"},
	}
	for _, tt := range attacks {
		t.Run(tt.name, func(t *testing.T) {
			r := newRepoFixture(t) // each attack on a repository of its own
			before := r.state(t)
			res := f.run(t, spec(t, r, tt.command))
			if after := r.state(t); after != before {
				t.Errorf("%q (exit %d, %s) changed the repository:\n%s", tt.command, res.ExitCode, res.Stderr, diffLines(before, after))
			}
		})
	}
}

// diffLines returns the lines of a missing from b and of b missing from a.
func diffLines(a, b string) string {
	in := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, l := range strings.Split(s, "\n") {
			m[l] = true
		}
		return m
	}
	ina, inb := in(a), in(b)
	var out strings.Builder
	for _, l := range strings.Split(a, "\n") {
		if !inb[l] {
			out.WriteString("- " + l + "\n")
		}
	}
	for _, l := range strings.Split(b, "\n") {
		if !ina[l] {
			out.WriteString("+ " + l + "\n")
		}
	}
	return out.String()
}

// TestMaskOverWorktree: a masked directory hides everything in it but a
// directory bound deeper (the command's own worktree under Autarch's state
// directory), which stays writable; the mask itself stays read-only.
func TestMaskOverWorktree(t *testing.T) {
	f := newFixture(t)
	state := filepath.Join(t.TempDir(), "autarch")
	own := filepath.Join(state, "worktrees", "own")
	mustWrite(t, filepath.Join(state, "nats", "auth.json"), `{"password": "state-secret-0009"}`)
	mustWrite(t, filepath.Join(state, "worktrees", "other", "x.go"), "other-worktree-0010")
	mustWrite(t, filepath.Join(own, "main.go"), "package main\n")
	for _, tt := range []struct {
		command  string
		wantFail bool
	}{
		{"cat main.go && echo y > y.txt && cat y.txt", false},
		{"cat " + filepath.Join(state, "nats", "auth.json"), true},
		{"cat " + filepath.Join(state, "worktrees", "other", "x.go"), true},
		{"ls -A " + state + " " + filepath.Join(state, "worktrees") + " | grep -v -e '^worktrees$' -e '^own$' -e ':$' -e '^$'", true},
		{"touch " + filepath.Join(state, "planted"), true},
		{"mkdir " + filepath.Join(state, "worktrees", "other2"), true},
	} {
		res := f.run(t, Spec{Dir: own, Masked: []string{state}, Command: tt.command})
		if (res.ExitCode != 0) != tt.wantFail {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", tt.command, res.ExitCode, res.Stdout, res.Stderr)
		}
		if strings.Contains(res.Stdout, "0009") || strings.Contains(res.Stdout, "0010") {
			t.Errorf("%q revealed the state: %q", tt.command, res.Stdout)
		}
	}
	if b, err := os.ReadFile(filepath.Join(own, "y.txt")); err != nil || string(b) != "y\n" {
		t.Errorf("the worktree under the mask was not written: %q %v", b, err)
	}
}
