package orchestrate

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/swarm"
	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/workspace"
	"github.com/autarch-dev/autarch/workspace/git"
)

// BranchPrefix starts every swarm's branch: autarch/swarm-ID.
const BranchPrefix = "autarch/swarm-"

// ensureWorktree makes sure the swarm's worktree exists on its branch:
// the branch is made at the base the first time; a folder that vanished is
// recreated from the branch. The user's HEAD, index and files are never
// touched. The worktree list and the refs change under the repository's
// ref lock (git.Repo.EnsureBranch, EnsureLinkedWorktree), as the
// workflow's pulses' and the jobs' do.
func ensureWorktree(ctx context.Context, repo *git.Repo, st *State) error {
	if fi, err := os.Stat(filepath.Join(st.Worktree, ".git")); err == nil && !fi.IsDir() {
		return nil // there (a resumed run): no git process
	}
	if err := repo.EnsureBranch(ctx, st.Branch, st.Base); err != nil {
		return fmt.Errorf("the swarm's branch %s: %w", st.Branch, err)
	}
	err := repo.EnsureLinkedWorktree(ctx, st.Worktree, "", st.Branch)
	if errors.Is(err, git.ErrNotWorktree) {
		return fmt.Errorf("the swarm's worktree folder %s exists and is not a worktree: move it away, then resume the swarm", st.Worktree)
	}
	if err != nil {
		return fmt.Errorf("create the swarm's worktree %s: %w", st.Worktree, err)
	}
	return nil
}

// cleanProposalPath checks a proposed path: relative, inside the worktree,
// not in .git.
func cleanProposalPath(root *workspace.Root, p string) (string, error) {
	rel, err := root.Clean(p)
	if err != nil {
		return "", err
	}
	if rel == "." {
		return "", fmt.Errorf("%q is the worktree itself: give a file path", p)
	}
	first, _, _ := strings.Cut(rel, "/")
	if strings.EqualFold(first, ".git") {
		return "", fmt.Errorf("%q is inside .git: proposals may write only the project's files", p)
	}
	return rel, nil
}

// proposalPath checks a proposed path as fs_write does: clean, inside the
// worktree, and writable by the session's rules (swarm.WriteRefused:
// .git, .autarch, the protected paths, the secret gate's paths, judged
// also where a symlink leads).
func proposalPath(sess *tools.Session, p string) (string, error) {
	rel, err := cleanProposalPath(sess.Root(), p)
	if err != nil {
		return "", err
	}
	if msg := swarm.WriteRefused(sess, rel); msg != "" {
		return "", errors.New(msg)
	}
	return rel, nil
}

// diffOf is the unified diff of the worktree's file to a proposal's
// content (or why the path is refused: the arbiter sees it, and applying
// refuses it). The file's content is read through the gate's one door
// (ReadShown): a file holding a secret is not shown to the arbiter's
// model, whose diff then holds the proposal's content alone.
func diffOf(sess *tools.Session, p Proposal) string {
	rel, err := proposalPath(sess, p.Path)
	if err != nil {
		return "refused path: " + err.Error() + "\n"
	}
	before, _, err := sess.Gate().ReadShown(sess.Root(), rel, workspace.MaxReadSize)
	if blocked := (*workspace.BlockedError)(nil); errors.As(err, &blocked) {
		return fmt.Sprintf("%s exists; its content is not shown (%s): the proposal replaces it with\n", rel, blocked.Reason) +
			tools.UnifiedDiff(rel, "", p.Content, true)
	}
	return tools.UnifiedDiff(rel, string(before), p.Content, err == nil)
}

// applyProposal writes an approved proposal's content in the worktree,
// judged again as fs_write judged it: the proposal need not come from
// fs_write (whoever holds the project's NATS credentials can publish
// one), and the configuration may have changed since. A path proposalPath
// refuses, content over swarm.MaxProposal and content breaking a code rule
// of rules are refused.
func applyProposal(sess *tools.Session, rules []*tools.Guardrails, p editor.SwarmProposal, createDirs bool) (string, error) {
	rel, err := proposalPath(sess, p.Path)
	if err != nil {
		return "", err
	}
	if len(p.Content) > swarm.MaxProposal {
		return "", fmt.Errorf("the content is %d bytes, over the %d a proposal may hold", len(p.Content), swarm.MaxProposal)
	}
	for _, g := range rules {
		if msg := g.CodeRuleBroken(rel, p.Content); msg != "" {
			return "", fmt.Errorf("%s breaks a code rule: %s", rel, msg)
		}
	}
	if dir := path.Dir(rel); !createDirs && dir != "." {
		if fi, err := sess.Root().Stat(dir); err != nil || !fi.IsDir() {
			return "", fmt.Errorf("folder %s does not exist and create_dirs is false", dir)
		}
	}
	return rel, sess.Root().WriteFile(rel, []byte(p.Content))
}

// guardrailsNow are the guardrails an approved proposal is judged by when
// applied: the run's and those of the project's configuration as it is
// now (the user may have protected more since the proposal was made).
func (o *Orchestrator) guardrailsNow() ([]*tools.Guardrails, error) {
	p, err := tools.LoadProject(o.cfg.Repo.Top(), nil)
	if err != nil {
		return nil, fmt.Errorf("read the project's configuration again to check the approved writes: %w; fix it, then resume the swarm", err)
	}
	return []*tools.Guardrails{o.cfg.Guardrails, p.Guardrails}, nil
}

// commitRound commits what the round's approved writes changed: nothing
// changed, no commit ("" returned). Nested repositories and gitlinks the
// commit leaves out (git.StageAll) are returned. The branch moves under
// the repository's ref lock (git.Repo.CommitPaths).
func commitRound(ctx context.Context, repo *git.Repo, st *State, paths []string) (string, []git.Excluded, error) {
	msg := fmt.Sprintf("swarm %s round %d: %s\n\nApproved by the arbiter (%s).\n\nSwarm: %s\nSwarm-Round: %d\n", st.ID, st.Round, strings.Join(paths, ", "), st.Arbiter, st.ID, st.Round)
	commit, excluded, err := repo.CommitPaths(ctx, st.Worktree, paths, msg)
	if err != nil {
		return "", nil, fmt.Errorf("commit the round's writes: %w", err)
	}
	return commit, excluded, nil
}
