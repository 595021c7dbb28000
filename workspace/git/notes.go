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

// PushNotes pushes NotesRef to remote (a remote's name or URL), beside the
// branches Autarch pushes, so that a clone can verify their receipts
// (code that pushes a branch itself adds NotesRefspec to its push). The
// remote's notes must be an ancestor of ours (fetch and merge them first
// otherwise: git notes --ref autarch merge).
func (r *Repo) PushNotes(ctx context.Context, remote string) error {
	if strings.HasPrefix(remote, "-") {
		return fmt.Errorf("push notes: remote %q is not a remote's name or URL", remote)
	}
	if ok, err := r.refExists(ctx, NotesRef); err != nil {
		return fmt.Errorf("push notes: %w", err)
	} else if !ok {
		return nil // no receipt written yet
	}
	// A remote the user named may be a path (file://): allowed here, as
	// for any push the user asks for; ext:: stays refused (safeConfig).
	if _, err := r.git.run(ctx, r.dir, nil, "-c", "protocol.file.allow=always", "push", "--quiet", "--no-verify", remote, NotesRefspec); err != nil {
		return fmt.Errorf("push %s to %s: %w", NotesRef, remote, err)
	}
	return nil
}
