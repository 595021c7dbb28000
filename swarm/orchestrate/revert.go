package orchestrate

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	kernel "github.com/autarch-dev/autarch/agent/run"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/workspace/git"
)

// RoundTrailer numbers a round's commit (commitRound writes it).
const RoundTrailer = "Swarm-Round"

// RevertRounds undoes the swarm's round commits from round on, newest
// first, as revert commits on the swarm's branch (git.Repo.RevertCommits:
// all or none, under the ref lock; history is kept), resets the swarm's
// worktree to the new tip and records it in the transcript. The swarm
// must not be running and its worktree must have no uncommitted changes
// to tracked files. The user's branch is never touched.
func RevertRounds(ctx context.Context, repo *git.Repo, stateDir, id string, round int) ([]git.Revert, error) {
	s, err := openStore(Dir(stateDir), id)
	if err != nil {
		return nil, err
	}
	st, err := s.loadState()
	if err != nil {
		return nil, err
	}
	unlock, err := kernel.Lock(lockPath(s.dir), 0)
	if kernel.IsLocked(err) {
		return nil, fmt.Errorf("swarm %s is running in another autarch process: stop it first, then revert: %w", id, err)
	}
	if err != nil {
		return nil, err
	}
	defer unlock()
	if err := ensureWorktree(ctx, repo, st); err != nil {
		return nil, err
	}
	out, err := repo.Git(ctx, st.Worktree, nil, "log", "--first-parent", "--format=%H%x00%(trailers:key="+RoundTrailer+",valueonly)%x01",
		st.Base+"..refs/heads/"+st.Branch)
	if err != nil {
		return nil, fmt.Errorf("list swarm %s's rounds: %w", id, err)
	}
	var commits, rounds []string
	for _, rec := range strings.Split(string(out), "\x01") {
		commit, n, ok := strings.Cut(strings.TrimSpace(rec), "\x00")
		if !ok {
			continue
		}
		r, err := strconv.Atoi(strings.TrimSpace(n))
		if err != nil {
			continue
		}
		rounds = append(rounds, strconv.Itoa(r))
		if r >= round {
			commits = append(commits, commit)
		}
	}
	if len(commits) == 0 {
		return nil, fmt.Errorf("swarm %s has no commit of round %d or later on %s (rounds with commits: %s)", id, round, st.Branch, strings.Join(rounds, ", "))
	}
	made, err := repo.RevertInWorktree(ctx, st.Worktree, st.Branch, commits)
	var c *git.RevertConflict
	if errors.As(err, &c) {
		return nil, fmt.Errorf("%w (nothing was changed)", err)
	}
	if err != nil {
		return made, fmt.Errorf("swarm %s: %w", id, err)
	}
	text := fmt.Sprintf("reverted rounds %d and later: %d revert commit(s) on %s", round, len(made), st.Branch)
	return made, s.record(editor.SwarmEvent{Kind: "commit", SwarmID: id, Text: text})
}
