package git

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// allowFile lets fetch and push reach a remote given as a path or a
// file:// URL (the hardened environment sets GIT_PROTOCOL_FROM_USER=0,
// which would refuse it); ext stays refused by safeConfig.
var allowFile = []string{"-c", "protocol.file.allow=always"}

// Clone makes dir (absent or empty) a repository fetched from url, hardened
// as every git process of this package is, with the remote's branches under
// refs/remotes/origin/, its work tree at rev (a commit, a branch of the
// remote, or HEAD: the remote's default branch) on a local branch named local. It returns the opened repository.
func Clone(ctx context.Context, url, dir, rev, local string, cfg Config) (*Repo, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("clone %s: %w", url, err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("clone %s: %w", url, err)
	}
	bare, err := newRepo(ctx, abs, cfg)
	if err != nil {
		return nil, err
	}
	if _, err := bare.git.run(ctx, abs, nil, "init", "-q", "-b", local); err != nil {
		return nil, fmt.Errorf("clone %s: %w", url, err)
	}
	r, err := Open(ctx, abs, cfg)
	if err != nil {
		return nil, err
	}
	if err := r.Fetch(ctx, url); err != nil {
		return nil, err
	}
	commit, err := r.ResolveCommit(ctx, rev)
	if err != nil {
		if commit, err = r.ResolveCommit(ctx, "refs/remotes/origin/"+rev); err != nil {
			return nil, fmt.Errorf("clone %s: %s is neither a commit nor a branch of the remote", url, rev)
		}
	}
	if _, err := r.git.run(ctx, abs, nil, "reset", "-q", "--hard", commit); err != nil {
		return nil, fmt.Errorf("clone %s: checking out %s: %w", url, rev, err)
	}
	return r, nil
}

// Fetch brings the remote's branches into refs/remotes/origin/, and its
// HEAD (its default branch's commit) as refs/remotes/origin/HEAD.
func (r *Repo) Fetch(ctx context.Context, url string) error {
	args := append(append([]string{}, allowFile...), "fetch", "-q", "--no-tags", "--prune", url, "+refs/heads/*:refs/remotes/origin/*", "+HEAD:refs/remotes/origin/HEAD")
	if _, err := r.git.run(ctx, r.top, nil, args...); err != nil {
		return fmt.Errorf("fetching %s: %w", url, err)
	}
	return nil
}

// Push fast-forwards the remote's branch to the local one (never forced:
// a push that would drop a commit on the remote fails).
func (r *Repo) Push(ctx context.Context, url, branch string) error {
	ref := "refs/heads/" + strings.TrimPrefix(branch, "refs/heads/")
	args := append(append([]string{}, allowFile...), "push", "-q", "--no-verify", url, ref+":"+ref)
	if _, err := r.git.run(ctx, r.top, nil, args...); err != nil {
		return fmt.Errorf("pushing %s to %s: %w", branch, url, err)
	}
	return nil
}

// Branches lists the local branches under prefix (e.g. "autarch/") with
// their commits.
func (r *Repo) Branches(ctx context.Context, prefix string) (map[string]string, error) {
	out, err := r.git.text(ctx, r.top, "for-each-ref", "--format=%(refname:strip=2) %(objectname)", "refs/heads/"+prefix)
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	for line := range strings.SplitSeq(out, "\n") {
		if name, hash, ok := strings.Cut(line, " "); ok {
			m[name] = hash
		}
	}
	return m, nil
}

// FetchBranch brings one branch of a remote into this repository as the
// local branch of the same name, under the repository's ref lock, and
// returns its commit. It only fast-forwards: a local branch of that name
// that has commits the remote's lacks, or that is checked out, is left
// as it is and the fetch fails.
func (r *Repo) FetchBranch(ctx context.Context, url, branch string) (string, error) {
	ref := "refs/heads/" + strings.TrimPrefix(branch, "refs/heads/")
	err := r.refLock(ctx, func() error {
		args := append(append([]string{}, allowFile...), "fetch", "-q", "--no-tags", "--no-write-fetch-head", url, ref+":"+ref)
		_, err := r.git.run(ctx, r.top, nil, args...)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("fetching %s from %s: %w", branch, url, err)
	}
	return r.ResolveCommit(ctx, ref)
}

// RemoteURL is the URL of one of the repository's remotes ("" when it
// has none of that name).
func (r *Repo) RemoteURL(ctx context.Context, name string) string {
	out, err := r.git.text(ctx, r.top, "config", "--get", "remote."+name+".url")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(out)
}
