package git

import (
	"bytes"
	"context"
	"fmt"
	"strings"
)

// NotesRef holds Autarch's notes on commits: the completion receipts of
// checkpoint commits (issue 32). It is shared by every worktree of the
// repository (git keeps refs/notes/ in the common directory), and no
// sandbox can write it: the repository's refs and objects are read-only to
// every command an agent causes. A note is still only a claim: whoever
// reads one ties it to the commit and tree it names (package receipt).
const NotesRef = "refs/notes/autarch"

// NotesRefspec pushes and fetches NotesRef as it is, for a push of a
// branch that carries receipts (git push REMOTE BRANCH NotesRefspec) and
// for CI that verifies them (git fetch REMOTE NotesRefspec).
const NotesRefspec = NotesRef + ":" + NotesRef

// AddNote attaches data as commit's note under NotesRef, replacing a note
// it had, under the repository's ref lock. The note is written with the
// hardened git of this package in the repository's common directory, never
// in a tree an agent wrote.
func (r *Repo) AddNote(ctx context.Context, commit string, data []byte) error {
	full, err := r.ResolveCommit(ctx, commit)
	if err != nil {
		return fmt.Errorf("note on %s: %w", commit, err)
	}
	return r.refLock(ctx, func() error {
		if _, err := r.git.run(ctx, r.dir, bytes.NewReader(data), "notes", "--ref", NotesRef, "add", "--force", "--file", "-", full); err != nil {
			return fmt.Errorf("note on %.12s: %w", full, err)
		}
		return nil
	})
}

// Note returns commit's note under NotesRef; ok is false when it has none.
func (r *Repo) Note(ctx context.Context, commit string) (data []byte, ok bool, err error) {
	full, err := r.ResolveCommit(ctx, commit)
	if err != nil {
		return nil, false, fmt.Errorf("note on %s: %w", commit, err)
	}
	blob, err := r.git.text(ctx, r.dir, "notes", "--ref", NotesRef, "list", full)
	if exitCode(err) == 1 {
		return nil, false, nil // no note (or no notes ref at all)
	}
	if err != nil {
		return nil, false, fmt.Errorf("note on %.12s: %w", full, err)
	}
	out, err := r.git.run(ctx, r.dir, nil, "cat-file", "blob", strings.TrimSpace(blob))
	if err != nil {
		return nil, false, fmt.Errorf("note on %.12s: %w", full, err)
	}
	return out, true, nil
}

// TreeOf returns a commit's tree and its first parent ("" for a root
// commit), as full hashes.
func (r *Repo) TreeOf(ctx context.Context, commit string) (tree, parent string, err error) {
	full, err := r.ResolveCommit(ctx, commit)
	if err != nil {
		return "", "", err
	}
	out, err := r.git.text(ctx, r.dir, "show", "-s", "--format=%T %P", full)
	if err != nil {
		return "", "", fmt.Errorf("tree of %.12s: %w", full, err)
	}
	f := strings.Fields(out)
	if len(f) == 0 {
		return "", "", fmt.Errorf("tree of %.12s: unexpected output %q", full, out)
	}
	if len(f) > 1 {
		parent = f[1]
	}
	return f[0], parent, nil
}

// remoteNotes is where PushNotes fetches a remote's receipts before
// merging them with this repository's.
const remoteNotes = "refs/autarch/remote-notes"

// pushNotesTries bounds PushNotes' fetch-merge-push rounds against other
// pushers of the same remote (the fleet's workers).
const pushNotesTries = 5

// NotesTip is NotesRef's commit ("" when no receipt was written yet).
func (r *Repo) NotesTip(ctx context.Context) (string, error) {
	if ok, err := r.refExists(ctx, NotesRef); err != nil || !ok {
		return "", err
	}
	return r.ResolveCommit(ctx, NotesRef)
}

// PushNotes pushes NotesRef to remote (a remote's name or URL), beside the
// branches Autarch pushes, so that a clone can verify their receipts
// (code that pushes a branch itself adds NotesRefspec to its push). The
// remote's receipts are fetched and merged into ours first (ours win for a
// commit both annotate: a receipt is checked against its commit anyway),
// and a push that lost a race with another pusher is tried again; it is
// never forced, so no receipt on the remote is dropped.
func (r *Repo) PushNotes(ctx context.Context, remote string) error {
	if strings.HasPrefix(remote, "-") {
		return fmt.Errorf("push notes: remote %q is not a remote's name or URL", remote)
	}
	if ok, err := r.refExists(ctx, NotesRef); err != nil {
		return fmt.Errorf("push notes: %w", err)
	} else if !ok {
		return nil // no receipt written yet
	}
	var err error
	for range pushNotesTries {
		if err = r.mergeRemoteNotes(ctx, remote); err != nil {
			return err
		}
		// A remote the user named may be a path (file://): allowed here,
		// as for any push the user asks for; ext:: stays refused
		// (safeConfig).
		if _, err = r.git.run(ctx, r.dir, nil, "-c", "protocol.file.allow=always", "push", "--quiet", "--no-verify", remote, NotesRefspec); err == nil {
			return nil
		}
	}
	return fmt.Errorf("push %s to %s (%d tries): %w", NotesRef, remote, pushNotesTries, err)
}

// mergeRemoteNotes fetches remote's NotesRef, if it has one, and merges it
// into ours under the ref lock.
func (r *Repo) mergeRemoteNotes(ctx context.Context, remote string) error {
	out, err := r.git.text(ctx, r.dir, "-c", "protocol.file.allow=always", "ls-remote", remote, NotesRef)
	if err != nil {
		return fmt.Errorf("receipts of %s: %w", remote, err)
	}
	if strings.TrimSpace(out) == "" {
		return nil // the remote has no receipts yet
	}
	if _, err := r.git.run(ctx, r.dir, nil, "-c", "protocol.file.allow=always", "fetch", "-q", "--no-tags", remote, "+"+NotesRef+":"+remoteNotes); err != nil {
		return fmt.Errorf("fetching the receipts of %s: %w", remote, err)
	}
	return r.refLock(ctx, func() error {
		if _, err := r.git.run(ctx, r.dir, nil, "notes", "--ref", NotesRef, "merge", "-q", "-s", "ours", remoteNotes); err != nil {
			return fmt.Errorf("merging the receipts of %s: %w", remote, err)
		}
		return nil
	})
}
