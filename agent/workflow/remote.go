package workflow

import (
	"context"
	"errors"

	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/workspace/trust"
)

// RemoteBranch is a run's branch on a git remote (a fleet worker pushed
// it): where it is and the commit it started from.
type RemoteBranch struct {
	URL    string
	Branch string
	Base   string
	// Name titles the diff ("" is the branch).
	Name string
}

// ApplyRemote fetches a branch a run on another machine pushed to a remote
// into the user's repository (hardened, under the ref lock, fast-forward
// only) and brings it into the user's folder as Apply does for a local
// workflow.
func (s *Service) ApplyRemote(ctx context.Context, b RemoteBranch, mode ApplyMode) (editor.ApplyWorkflowResult, error) {
	if b.Branch == "" || b.URL == "" {
		return editor.ApplyWorkflowResult{}, invalid("the run has no branch on a remote yet: apply it once it has pushed a checkpoint")
	}
	if mode != ApplyMerge && mode != ApplyEdit {
		return editor.ApplyWorkflowResult{}, invalid("mode %q is not accepted: use merge or edit", mode)
	}
	e, err := s.open(ctx)
	if err != nil {
		return editor.ApplyWorkflowResult{}, err
	}
	if _, err := e.cfg.Repo.FetchBranch(ctx, b.URL, b.Branch); err != nil {
		return editor.ApplyWorkflowResult{Files: []string{}, Message: err.Error() + " — delete or rename your local branch " + b.Branch + ", then apply again"}, nil
	}
	name := b.Name
	if name == "" {
		name = b.Branch
	}
	res, err := e.Apply(ctx, store.Workflow{Name: name, BaseCommit: b.Base, WorkflowBranch: b.Branch}, mode, s.cfg.Document)
	if err == nil && res.Applied {
		s.review.reanchor(ctx, nil)
	}
	return res, err
}

// Origin is where runs of this project on other machines clone it from:
// the repository's origin remote, else its folder.
func (s *Service) Origin(ctx context.Context) (string, error) {
	e, err := s.open(ctx)
	if err != nil {
		return "", err
	}
	if url := e.cfg.Repo.RemoteURL(ctx, "origin"); url != "" {
		return url, nil
	}
	return e.cfg.Repo.Top(), nil
}

// TrustedDigest is the digest of the project's executable configuration
// when the user trusted it ("" otherwise): a run elsewhere runs hooks only
// from configuration with this digest.
func (s *Service) TrustedDigest(ctx context.Context) (string, error) {
	if _, err := s.open(ctx); err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.project
	if p == nil {
		return "", errors.New("the project is not open")
	}
	if p.Config.Trust != trust.Trusted || p.Config.Config.Empty() {
		return "", nil
	}
	return p.Config.Config.Digest(), nil
}
