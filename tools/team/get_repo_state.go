package team

import (
	"context"
	_ "embed"
	"strconv"
	"strings"

	"github.com/autarch-dev/autarch/tools"
)

//go:embed get_repo_state.md
var getRepoStateDesc string

type getRepoStateParams struct {
	Reason string `json:"reason"`
}

// repoState is get_repo_state's result.
type repoState struct {
	Branch    string     `json:"branch"`
	Detached  bool       `json:"detached,omitempty"`
	Upstream  string     `json:"upstream,omitempty"`
	Clean     bool       `json:"clean"`
	Ahead     int        `json:"ahead"`
	Behind    int        `json:"behind"`
	Staged    []string   `json:"staged"`
	Modified  []string   `json:"modified"`
	Untracked []string   `json:"untracked"`
	Last      lastCommit `json:"lastCommit"`
}

type lastCommit struct {
	Hash    string `json:"hash"`
	Message string `json:"message"`
	Author  string `json:"author"`
	Date    string `json:"date"`
}

func newGetRepoState() tools.Tool {
	return tools.DefineWith(tools.Traits{Effect: tools.EffectRead, Category: tools.CategoryReadOnly}, "get_repo_state", getRepoStateDesc, tools.ReadOnly, func(ctx context.Context, s *tools.Session, _ getRepoStateParams) (tools.Result, error) {
		w, err := openWorktree(ctx, s)
		if err != nil {
			return failure("not_a_repository", "the workspace is not a git work tree: "+err.Error(), nil), nil
		}
		st, err := w.state(ctx)
		if err != nil {
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
