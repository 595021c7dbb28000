package git_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/internal/testkit"
	"github.com/autarch-dev/autarch/workspace/git"
	"github.com/autarch-dev/autarch/workspace/git/gitattack"
)

// withSubmodule is a user's clone (without submodules) of a repository
// whose commit has the local repository lib (one file) as its submodule
// lib, with .gitmodules edited by edit (nil: left as git wrote it); and
// the clone's workflow "sub".
func withSubmodule(t *testing.T, edit func(gitmodules string) string) (user string, w *git.Workflow) {
	t.Helper()
	ctx := context.Background()
	lib := filepath.Join(t.TempDir(), "lib")
	gitattack.Git(t, t.TempDir(), "init", "-q", "-b", "main", lib)
	testkit.WriteFile(t, filepath.Join(lib, "lib.go"), "package lib\n\nconst Answer = 42\n")
	gitattack.Git(t, lib, "add", "-A")
	gitattack.Git(t, lib, "commit", "-q", "-m", "lib")
	origin := filepath.Join(t.TempDir(), "origin")
	gitattack.Git(t, t.TempDir(), "init", "-q", "-b", "main", origin)
	testkit.WriteFile(t, filepath.Join(origin, "main.go"), "package main\n")
	gitattack.Git(t, origin, "-c", "protocol.file.allow=always", "submodule", "add", "-q", lib, "lib")
	if edit != nil {
		p := filepath.Join(origin, ".gitmodules")
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		testkit.WriteFile(t, p, edit(string(b)))
	}
	gitattack.Git(t, origin, "add", "-A")
	gitattack.Git(t, origin, "commit", "-q", "-m", "initial")
	// The user cloned it without its submodules (no --recurse-submodules).
	user = filepath.Join(t.TempDir(), "user")
	gitattack.Git(t, t.TempDir(), "clone", "-q", origin, user)
	r, err := git.Open(ctx, user, git.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if w, err = r.CreateWorkflow(ctx, "sub", "main"); err != nil {
		t.Fatal(err)
	}
	return user, w
}

// TestInitSubmodules (004-4): Autarch checks out on the host the
// submodules the workflow's commit names, over file or https only; a URL
// of another transport, an `update = !command` or a .gitmodules an agent
// changed in the worktree runs nothing and checks out nothing.
func TestInitSubmodules(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ran")
	prog := gitattack.Program(t, marker)
	tests := []struct {
		name    string
		edit    func(string) string // the committed .gitmodules
		planted func(string) string // the worktree's .gitmodules, changed after the commit
		want    []string            // submodules checked out
		wantErr string
	}{
		{name: "local submodule", want: []string{"lib"}},
		{name: "update command refused", wantErr: "invalid value for 'submodule.lib.update'",
			edit: func(s string) string { return s + "\tupdate = !" + prog + "\n" }},
		{name: "ext transport refused", wantErr: "transport 'ext' not allowed",
			edit: func(s string) string { return urlOf(s, "ext::"+prog) }},
		{name: "ssh transport refused", wantErr: "transport 'ssh' not allowed",
			edit: func(s string) string { return urlOf(s, "ssh://example.invalid/lib.git") }},
		{name: "git transport refused", wantErr: "transport 'git' not allowed",
			edit: func(s string) string { return urlOf(s, "git://example.invalid/lib.git") }},
		{name: "planted .gitmodules refused", wantErr: ".gitmodules differs from the commit",
			planted: func(s string) string { return urlOf(s, "ext::"+prog) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			os.Remove(marker)
			_, w := withSubmodule(t, tt.edit)
			if tt.planted != nil {
				p := filepath.Join(w.Worktree, ".gitmodules")
				b, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				testkit.WriteFile(t, p, tt.planted(string(b)))
			}
			got, err := w.InitSubmodules(context.Background())
			if gitattack.Ran(marker) {
				t.Fatalf("the submodule's configuration ran a program")
			}
			_, checkedOut := os.Stat(filepath.Join(w.Worktree, "lib", "lib.go"))
			if testkit.WantErr(t, err, tt.wantErr) {
				if checkedOut == nil {
					t.Errorf("lib was checked out")
				}
				return
			}
			if !slices.Equal(got, tt.want) || checkedOut != nil {
				t.Fatalf("checked out %v (lib/lib.go: %v), want %v", got, checkedOut, tt.want)
			}
			st, err := w.Status(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if changed := st.TrackedChanges(); len(changed) > 0 {
				t.Errorf("the checked out submodule shows as tracked changes: %v", changed)
			}
			again, err := w.InitSubmodules(context.Background())
			if err != nil || !slices.Equal(again, tt.want) {
				t.Errorf("again: %v, %v", again, err)
			}
		})
	}
}

// TestInitSubmodulesNone: a commit without .gitmodules has nothing to do.
func TestInitSubmodulesNone(t *testing.T) {
	_, _, w := attackWorkflow(t)
	got, err := w.InitSubmodules(context.Background())
	if err != nil || len(got) != 0 {
		t.Errorf("InitSubmodules = %v, %v", got, err)
	}
	if errors.Is(err, git.ErrGitmodulesChanged) {
		t.Error(err)
	}
}

// urlOf replaces the url of a .gitmodules.
func urlOf(gitmodules, url string) string {
	var out []string
	for _, l := range strings.Split(gitmodules, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "url = ") {
			l = "\turl = " + url
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// TestInitSubmodulesAfterAPulse: a .gitmodules a pulse committed on the
// workflow branch is not the base's: nothing is fetched from it. A
// parallel pulse's own worktree gets the base's submodules checked out,
// as the workflow's has them.
func TestInitSubmodulesAfterAPulse(t *testing.T) {
	ctx := context.Background()
	marker := filepath.Join(t.TempDir(), "ran")
	prog := gitattack.Program(t, marker)
	_, w := withSubmodule(t, nil)
	pt, err := w.OpenPulseTree(ctx, "p1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(pt.Path, "lib", "lib.go")); err != nil {
		t.Errorf("the parallel pulse's worktree lacks the submodule: %v", err)
	}
	if _, err := w.StartPulse(ctx, "p0"); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(w.Worktree, ".gitmodules")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	testkit.WriteFile(t, p, urlOf(string(b), "ext::"+prog))
	if _, err := w.CompletePulse(ctx, "p0", "chore: point lib elsewhere"); err != nil {
		t.Fatal(err)
	}
	if _, err := w.InitSubmodules(ctx); !errors.Is(err, git.ErrGitmodulesChanged) {
		t.Errorf("InitSubmodules after a pulse changed .gitmodules = %v, want ErrGitmodulesChanged", err)
	}
	if gitattack.Ran(marker) {
		t.Error("the pulse's .gitmodules ran a program")
	}
}
