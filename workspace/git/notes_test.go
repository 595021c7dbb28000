package git

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestNotes: a note is written under the ref lock with hardened git (no
// hook of the user's runs), read back, replaced, and pushed with
// NotesRefspec; the user's HEAD, index and files stay as they were.
func TestNotes(t *testing.T) {
	dir, hookDir := userRepo(t)
	before := snapshot(t, dir)
	ctx := context.Background()
	r, err := Open(ctx, dir, Config{})
	if err != nil {
		t.Fatal(err)
	}
	head := gitT(t, dir, "rev-parse", "HEAD")
	if _, ok, err := r.Note(ctx, head); ok || err != nil {
		t.Fatalf("Note before any = %v, %v", ok, err)
	}
	if err := r.PushNotes(ctx, filepath.Join(t.TempDir(), "none")); err != nil {
		t.Errorf("PushNotes without notes = %v, want nothing to do", err)
	}
	for _, body := range []string{`{"a":1}`, `{"a":2}`} {
		if err := r.AddNote(ctx, "main", []byte(body+"\n")); err != nil {
			t.Fatal(err)
		}
		data, ok, err := r.Note(ctx, head)
		if err != nil || !ok || string(data) != body+"\n" {
			t.Errorf("Note = %q, %v, %v; want %q", data, ok, err, body)
		}
	}
	tree, parent, err := r.TreeOf(ctx, head)
	if err != nil || tree != gitT(t, dir, "rev-parse", "HEAD^{tree}") || parent != gitT(t, dir, "rev-parse", "HEAD^") {
		t.Errorf("TreeOf = %s, %s, %v", tree, parent, err)
	}
	remote := filepath.Join(t.TempDir(), "remote.git")
	gitT(t, t.TempDir(), "init", "-q", "--bare", remote)
	if err := r.PushNotes(ctx, remote); err != nil {
		t.Fatal(err)
	}
	if got := gitT(t, remote, "notes", "--ref", NotesRef, "show", head); got != `{"a":2}` {
		t.Errorf("the remote's note = %q", got)
	}
	if err := r.PushNotes(ctx, "--upload-pack=touch pwned"); err == nil || !strings.Contains(err.Error(), "not a remote") {
		t.Errorf("PushNotes of an option = %v", err)
	}
	if ran := hooksRan(t, hookDir); ran != "" {
		t.Errorf("the user's hooks ran: %s", ran)
	}
	after := snapshot(t, dir)
	for k, v := range before {
		if after[k] != v {
			t.Errorf("%s changed", k)
		}
	}
}

// TestPushNotesMergesOtherPushers: two clones of one remote (two fleet
// workers) annotate their own commits and push their receipts in turn;
// each push merges what the other pushed before (never forced), so the
// remote ends with every receipt.
func TestPushNotesMergesOtherPushers(t *testing.T) {
	ctx := context.Background()
	remote := filepath.Join(t.TempDir(), "remote.git")
	gitT(t, t.TempDir(), "init", "-q", "--bare", remote)
	seed, _ := userRepo(t)
	gitT(t, seed, "push", "-q", remote, "main")
	worker := func(name string) (*Repo, string) {
		dir := filepath.Join(t.TempDir(), name)
		gitT(t, t.TempDir(), "clone", "-q", remote, dir)
		gitT(t, dir, "commit", "-q", "--allow-empty", "-m", name)
		r, err := Open(ctx, dir, Config{})
		if err != nil {
			t.Fatal(err)
		}
		return r, gitT(t, dir, "rev-parse", "HEAD")
	}
	a, ca := worker("a")
	b, cb := worker("b")
	note := func(r *Repo, commit, body string) {
		t.Helper()
		if err := r.AddNote(ctx, commit, []byte(body)); err != nil {
			t.Fatal(err)
		}
		if err := r.PushNotes(ctx, remote); err != nil {
			t.Fatalf("PushNotes: %v", err)
		}
	}
	note(a, ca, `{"by":"a"}`)
	note(b, cb, `{"by":"b"}`) // the remote's notes are not an ancestor of b's
	head := gitT(t, seed, "rev-parse", "HEAD")
	note(a, head, `{"by":"a","of":"main"}`)
	for commit, want := range map[string]string{ca: `{"by":"a"}`, cb: `{"by":"b"}`, head: `{"by":"a","of":"main"}`} {
		if got := gitT(t, remote, "notes", "--ref", NotesRef, "show", commit); got != want {
			t.Errorf("the remote's note on %.8s = %q, want %q", commit, got, want)
		}
	}
	if tip, err := a.NotesTip(ctx); err != nil || tip != gitT(t, remote, "rev-parse", NotesRef) {
		t.Errorf("NotesTip = %q, %v; want the remote's %s", tip, err, gitT(t, remote, "rev-parse", NotesRef))
	}
}
