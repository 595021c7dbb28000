package git

import (
	"context"
	"fmt"
	"strings"
	"time"

	gogit "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Commit is a commit as the workflow shows it.
type Commit struct {
	Hash    string    `json:"hash"`
	Summary string    `json:"summary"` // the first line of the message
	Message string    `json:"message"`
	Author  Identity  `json:"author"`
	When    time.Time `json:"when"`
	// IsRecoveryCheckpoint is set on recovery checkpoint commits.
	IsRecoveryCheckpoint bool `json:"isRecoveryCheckpoint,omitempty"`
}

// maxLog bounds a history walk.
const maxLog = 10000

// Commits lists the commits of the workflow branch since BaseCommit, oldest
// first. It reads objects in process with go-git, opening the linked
// worktree with EnableDotGitCommonDir.
func (w *Workflow) Commits(ctx context.Context) ([]Commit, error) {
	repo, err := gogit.PlainOpenWithOptions(w.Worktree, &gogit.PlainOpenOptions{EnableDotGitCommonDir: true})
	if err != nil {
		return nil, fmt.Errorf("open worktree %s: %w", w.Worktree, err)
	}
	ref, err := repo.Reference(plumbing.ReferenceName(w.ref()), true)
	if err != nil {
		return nil, fmt.Errorf("workflow %s: %w", w.Name, err)
	}
	base := plumbing.NewHash(w.BaseCommit)
	var out []Commit
	hash := ref.Hash()
	for range maxLog {
		if hash == base || hash.IsZero() {
			break
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c, err := repo.CommitObject(hash)
		if err != nil {
			return nil, fmt.Errorf("workflow %s: commit %s: %w", w.Name, hash, err)
		}
		out = append(out, toCommit(c))
		if c.NumParents() == 0 {
			break
		}
		hash = c.ParentHashes[0]
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, nil
}

// Commit reads one commit (a branch, tag or id) with go-git.
func (r *Repo) Commit(ctx context.Context, rev string) (Commit, error) {
	id, err := r.ResolveCommit(ctx, rev)
	if err != nil {
		return Commit{}, err
	}
	repo, err := gogit.PlainOpenWithOptions(r.dir, &gogit.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	if err != nil {
		return Commit{}, fmt.Errorf("open repository %s: %w", r.dir, err)
	}
	c, err := repo.CommitObject(plumbing.NewHash(id))
	if err != nil {
		return Commit{}, fmt.Errorf("commit %s: %w", rev, err)
	}
	return toCommit(c), nil
}

func toCommit(c *object.Commit) Commit {
	summary, _, _ := strings.Cut(c.Message, "\n")
	return Commit{
		Hash:                 c.Hash.String(),
		Summary:              summary,
		Message:              c.Message,
		Author:               Identity{Name: c.Author.Name, Email: c.Author.Email},
		When:                 c.Author.When,
		IsRecoveryCheckpoint: strings.Contains(c.Message, "\n"+RecoveryTrailer+"\n") || strings.HasSuffix(c.Message, "\n"+RecoveryTrailer),
	}
}
