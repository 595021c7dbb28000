package team

import (
	"context"
	"strconv"
	"strings"

	"github.com/autarch-dev/autarch/tools"
)

type getRepoStateParams struct {
	Reason string `json:"reason"`
}

// repoState is get_repo_state's result.
type repoState struct {
	Branch   string `json:"branch"`
	Detached bool   `json:"detached,omitempty"`
	Upstream string `json:"upstream,omitempty"`
	Clean    bool   `json:"clean"`
	Ahead    int    `json:"ahead"`
	Behind   int    `json:"behind"`
	// ComparedWith is what ahead and behind count against (003-10): the
	// upstream, else the base the branch was created from, else the
	// default branch; NotCompared says why there was nothing to count
	// against (never a silent 0).
	ComparedWith string `json:"comparedWith,omitempty"`
	NotCompared  string `json:"notCompared,omitempty"`
	counted      bool
	Staged       []string   `json:"staged"`
	Modified     []string   `json:"modified"`
	Untracked    []string   `json:"untracked"`
	Last         lastCommit `json:"lastCommit"`
}

type lastCommit struct {
	Hash    string `json:"hash"`
	Message string `json:"message"`
	Author  string `json:"author"`
	Date    string `json:"date"`
}

func newGetRepoState() tools.Tool {
	return tools.DefineWith(tools.Traits{Effect: tools.EffectRead, Category: tools.CategoryReadOnly}, "get_repo_state", describe("get_repo_state"), tools.ReadOnly, func(ctx context.Context, s *tools.Session, _ getRepoStateParams) (tools.Result, error) {
		w, err := openWorktree(ctx, s)
		if err != nil {
			return failure("not_a_repository", "the workspace is not a git work tree: "+err.Error(), nil), nil
		}
		st, err := w.state(ctx)
		if err != nil {
			return tools.Result{}, err
		}
		if err := w.aheadBehind(ctx, &st); err != nil {
			return tools.Result{}, err
		}
		return tools.JSONResult(st, false), nil
	})
}

// state reads the work tree's status (git status --porcelain=v2) and last commit.
func (w *worktree) state(ctx context.Context) (repoState, error) {
	out, err := w.text(ctx, "status", "--porcelain=v2", "--branch", "-z", "--untracked-files=all", "--ignore-submodules=all")
	if err != nil {
		return repoState{}, err
	}
	st := parseStatus(out)
	if st.Last.Hash != "" {
		log, err := w.text(ctx, "log", "-1", "--no-show-signature", "--format=%H%x00%s%x00%an <%ae>%x00%aI", "HEAD")
		if err != nil {
			return repoState{}, err
		}
		if f := strings.SplitN(log, "\x00", 4); len(f) == 4 {
			st.Last = lastCommit{Hash: f[0], Message: f[1], Author: f[2], Date: f[3]}
		}
	}
	return st, nil
}

// parseStatus parses `git status --porcelain=v2 --branch -z`; Last.Hash is
// the HEAD commit ("" before the first commit).
func parseStatus(out string) repoState {
	st := repoState{Staged: []string{}, Modified: []string{}, Untracked: []string{}}
	fields := strings.Split(out, "\x00")
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		switch {
		case strings.HasPrefix(f, "# branch.oid "):
			if oid := strings.TrimPrefix(f, "# branch.oid "); oid != "(initial)" {
				st.Last.Hash = oid
			}
		case strings.HasPrefix(f, "# branch.head "):
			st.Branch = strings.TrimPrefix(f, "# branch.head ")
			if st.Branch == "(detached)" {
				st.Branch, st.Detached = "", true
			}
		case strings.HasPrefix(f, "# branch.upstream "):
			st.Upstream = strings.TrimPrefix(f, "# branch.upstream ")
		case strings.HasPrefix(f, "# branch.ab "):
			st.counted = true
			for _, n := range strings.Fields(strings.TrimPrefix(f, "# branch.ab ")) {
				v, _ := strconv.Atoi(n[1:])
				if n[0] == '+' {
					st.Ahead = v
				} else {
					st.Behind = v
				}
			}
		case strings.HasPrefix(f, "1 "), strings.HasPrefix(f, "2 "), strings.HasPrefix(f, "u "):
			parts := strings.SplitN(f, " ", map[byte]int{'1': 9, '2': 10, 'u': 11}[f[0]])
			path := parts[len(parts)-1]
			if f[0] == '2' {
				i++ // the rename's original path
			}
			xy := parts[1]
			if xy[0] != '.' {
				st.Staged = append(st.Staged, path)
			}
			if xy[1] != '.' {
				st.Modified = append(st.Modified, path)
			}
		case strings.HasPrefix(f, "? "):
			st.Untracked = append(st.Untracked, strings.TrimPrefix(f, "? "))
		}
	}
	st.Clean = len(st.Staged)+len(st.Modified)+len(st.Untracked) == 0
	return st
}

// aheadBehind counts the commits HEAD is ahead of and behind what it is
// compared with when the branch has no (live) upstream: the base
// create_branch made it from (its reflog's "Created from"), else the
// default branch (origin/HEAD, main, master).
func (w *worktree) aheadBehind(ctx context.Context, st *repoState) error {
	if st.counted {
		st.ComparedWith = st.Upstream
		return nil
	}
	if st.Last.Hash == "" {
		st.NotCompared = "the branch has no commit yet"
		return nil
	}
	against := ""
	if st.Branch != "" {
		against = w.createdFrom(ctx, st.Branch)
	}
	if against == "" {
		against = w.defaultBranch(ctx, st.Branch)
	}
	if against == "" {
		st.NotCompared = "no upstream, no recorded base and no default branch (origin/HEAD, main, master) to count against"
		return nil
	}
	out, err := w.text(ctx, "rev-list", "--left-right", "--count", "HEAD..."+against, "--")
	if err != nil {
		return err
	}
	if f := strings.Fields(out); len(f) == 2 {
		st.Ahead, _ = strconv.Atoi(f[0])
		st.Behind, _ = strconv.Atoi(f[1])
	}
	st.ComparedWith = against
	return nil
}

// createdFrom is the start point the branch's reflog says it was created
// from ("branch: Created from origin/main", as create_branch's git switch
// -c writes it), when it still names a commit; "" otherwise.
func (w *worktree) createdFrom(ctx context.Context, branch string) string {
	out, err := w.text(ctx, "reflog", "show", "--format=%gs", "refs/heads/"+branch, "--")
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	from, ok := strings.CutPrefix(lines[len(lines)-1], "branch: Created from ")
	if !ok || from == "" || from == "HEAD" || strings.HasPrefix(from, "-") {
		return ""
	}
	if ok, err := w.exists(ctx, from); err != nil || !ok {
		return ""
	}
	return from
}

// defaultBranch is the repository's default branch (origin/HEAD, else
// main, else master) other than the branch itself; "" when none.
func (w *worktree) defaultBranch(ctx context.Context, branch string) string {
	if out, err := w.text(ctx, "symbolic-ref", "-q", "--short", "refs/remotes/origin/HEAD"); err == nil && out != "" {
		return out
	}
	for _, b := range []string{"main", "master"} {
		if b == branch {
			continue
		}
		if ok, err := w.exists(ctx, "refs/heads/"+b); err == nil && ok {
			return b
		}
	}
	return ""
}
