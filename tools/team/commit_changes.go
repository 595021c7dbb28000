package team

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/tools/verify"
	"github.com/autarch-dev/autarch/workspace/git"
)

// commit_changes' error codes (coding-team-tools.md).
const (
	CodeNothingToCommit = "nothing_to_commit"
	CodeCommitError     = "commit_error"
)

type commitChangesParams struct {
	Reason  string `json:"reason"`
	Message string `json:"message" jsonschema:"Conventional Commit message: type(scope): description, then an optional body after a blank line"`
}

// verifier is a verification tool commit_changes runs (run_tests, run_lint).
type verifier struct {
	name string
	tool tools.Tool
	kind verify.Kind
}

func newCommitChanges(job Job, lock sync.Locker, checks *checkCache, verifiers []verifier) tools.Tool {
	t := tools.DefineWith(tools.Traits{Effect: tools.EffectExecute, Category: tools.CategoryMutating}, "commit_changes", describe("commit_changes"), tools.Write, func(ctx context.Context, s *tools.Session, p commitChangesParams) (tools.Result, error) {
		if job == nil {
			return noJob("commit_changes"), nil
		}
		c := committer{job: job, lock: lock, checks: checks, verifiers: verifiers}
		res, err := c.commit(ctx, s, p.Message)
		if err != nil {
			return res, err
		}
		return res, report(ctx, "commit_changes", res)
	})
	return t
}

type committer struct {
	job       Job
	lock      sync.Locker
	checks    *checkCache
	verifiers []verifier
}

func (c committer) commit(ctx context.Context, s *tools.Session, message string) (tools.Result, error) {
	zero := map[string]any{"committed": false, "commitHash": "", "filesCommitted": 0}
	fail := func(code, msg string) (tools.Result, error) { return failure(code, msg, zero), nil }
	summary, err := git.ParseSummary(message)
	if err != nil {
		return fail(CodeCommitError, err.Error())
	}
	w, err := openWorktree(ctx, s)
	if errors.Is(err, errNoRepository) {
		return fail(CodeCommitError, err.Error())
	}
	if err != nil {
		return tools.Result{}, err
	}
	if msg, err := w.requireLinked(ctx, "commit_changes"); err != nil || msg != "" {
		if err != nil {
			return tools.Result{}, err
		}
		return fail(CodeCommitError, msg)
	}
	branch, err := w.branch(ctx)
	if err != nil {
		return tools.Result{}, err
	}
	zero["branch"] = branch
	if !strings.HasPrefix(branch, BranchPrefix) {
		return fail(CodeCommitError, "the worktree is not on an ai/ branch: call create_branch first, then commit")
	}
	status, err := w.text(ctx, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--ignore-submodules=all")
	if err != nil {
		return tools.Result{}, err
	}
	if status == "" {
		return fail(CodeNothingToCommit, "there are no changes to commit on "+branch+": apply a patch first")
	}
	state, err := w.treeState(ctx, c.checks.base)
	if err != nil {
		return tools.Result{}, err
	}
	failed, unverified, results, reports, err := c.verify(ctx, s, state)
	if err != nil {
		return tools.Result{}, err
	}
	if len(failed) > 0 {
		zero["failedChecks"], zero["checkResults"] = failed, results
		return fail(CodeCommitError, "not committed: "+strings.Join(failed, " and ")+" did not pass on the current tree; fix what they report (checkResults), then commit again")
	}
	if len(unverified) > 0 {
		ok, feedback, err := c.allowUnverified(ctx, branch)
		if err != nil {
			return tools.Result{}, err
		}
		if !ok {
			zero["unverified"] = unverified
			msg := "not committed: no test runner is detected and no test command is configured, and the user did not allow commits without tests"
			if feedback != "" {
				msg += "; their answer: " + feedback
			}
			return fail(CodeCommitError, msg+". Finish with the changes uncommitted and say so, or follow the user's answer")
		}
		results["run_tests"] = map[string]any{"status": "skipped", "note": "no test runner detected or configured; the user allowed commits without tests"}
	}
	c.lock.Lock()
	defer c.lock.Unlock()
	excluded, err := w.repo.StageAll(ctx, w.dir, "HEAD", nil, nil)
	if err != nil {
		return fail(CodeCommitError, "staging the changes failed: "+gitMessage(err))
	}
	// What the checks tested is what is committed, whatever the job's
	// .gitattributes would convert (redteam s11 01).
	if _, err := w.repo.StageAsWritten(ctx, w.dir, c.job.BaseCommit()); err != nil {
		return fail(CodeCommitError, "staging the changes as they are in the tree failed: "+gitMessage(err))
	}
	notCommitted := git.ExcludedMessage(excluded)
	if notCommitted != "" {
		zero["excluded"] = excluded
	}
	names, err := w.text(ctx, "diff", "--cached", "--name-only", "-z")
	if err != nil {
		return tools.Result{}, err
	}
	if names == "" {
		if notCommitted != "" {
			return fail(CodeNothingToCommit, "there are no changes to commit on "+branch+" but what was left out:\n"+notCommitted)
		}
		return fail(CodeNothingToCommit, "there are no changes to commit on "+branch+": apply a patch first")
	}
	files := len(strings.Split(strings.TrimSuffix(names, "\x00"), "\x00"))
	if _, err := w.repo.Git(ctx, w.dir, strings.NewReader(summary.Message()), "commit", "-q", "--no-verify", "-F", "-"); err != nil {
		return fail(CodeCommitError, "git commit failed: "+gitMessage(err))
	}
	hash, err := w.text(ctx, "rev-parse", "--verify", "HEAD")
	if err != nil {
		return tools.Result{}, err
	}
	if err := c.job.Committed(ctx, Commit{Hash: hash, Message: summary.Message(), Branch: branch, Files: files, Checks: reports}); err != nil {
		return tools.Result{}, fmt.Errorf("recording the job's commit: %w", err)
	}
	// checkResults (an extension of the spec's shape): the passing
	// verification the commit rests on, which the job records.
	res := map[string]any{"committed": true, "commitHash": hash, "filesCommitted": files, "branch": branch, "checkResults": results}
	if notCommitted != "" {
		// excluded and notCommitted (extensions of the spec's shape): the
		// nested repositories and gitlinks left out, and what to do.
		res["excluded"], res["notCommitted"] = excluded, notCommitted
	}
	return tools.JSONResult(res, false), nil
}

// verify runs (or takes from the cache) the project's tests and linters
// on the tree state; failed names those that did not pass, res holds
// the results of those that failed or just ran (for the model and the
// job's record). A kind with no detected runner or linter runs the
// quality gates' configured command for it (003-30); tests that can run
// neither way are unverified (unverified names them), a missing linter
// only noted.
func (c committer) verify(ctx context.Context, s *tools.Session, state string) (failed, unverified []string, res map[string]any, reports []verify.Report, err error) {
	d := verify.Detector{Root: s.Root().Dir()}
	res = map[string]any{}
	for _, v := range c.verifiers {
		if len(d.Checks(".", v.kind)) == 0 {
			r, ok := s.ConfiguredCheck(ctx, v.kind)
			switch {
			case ok:
				res[v.tool.Name()] = r
				reports = append(reports, r)
				if r.Status != verify.StatusPass {
					failed = append(failed, fmt.Sprintf("%s (%s: %s)", v.tool.Name(), r.Command, r.Status))
				}
			case v.kind == verify.Test:
				unverified = append(unverified, v.tool.Name())
			default:
				res[v.tool.Name()] = map[string]any{"status": "skipped", "note": "no linter detected or configured (guardrails.quality_gates.commands.lint)"}
			}
			continue
		}
		st, r, err := c.checks.run(ctx, s, v.tool, state)
		if err != nil {
			return nil, nil, nil, nil, err
		}
		reports = append(reports, c.checks.report(v.tool.Name(), state)...)
		if r.Output != "" || st != "pass" { // a verdict from the cache was recorded when it ran
			res[v.tool.Name()] = resultValue(r)
		}
		if st != "pass" {
			failed = append(failed, fmt.Sprintf("%s (%s)", v.tool.Name(), st))
		}
	}
	return failed, unverified, res, reports, nil
}

// allowUnverified asks the human, once per job, whether the job may
// commit without tests (none detected and none configured): commits are
// never unverified unasked (003-30).
func (c committer) allowUnverified(ctx context.Context, branch string) (ok bool, feedback string, err error) {
	if c.checks.unverifiedAllowed() {
		return true, "", nil
	}
	_, approved, feedback, err := c.job.Escalate(ctx, Escalation{Severity: "high",
		Reason: "commit_changes found no test runner (go.mod, package.json with vitest or jest, pytest, Cargo.toml) and no configured test command " +
			"(guardrails.quality_gates.commands.test in your Autarch config) for " + branch + ": approve to let this job commit without running tests, " +
			"or reject and configure a test command"})
	if err != nil {
		return false, "", err
	}
	if approved {
		c.checks.allowUnverified()
	}
	return approved, feedback, nil
}

// resultValue is a tool result as a JSON value: its JSON, or its text.
func resultValue(r tools.Result) any {
	if json.Valid([]byte(r.Output)) {
		return json.RawMessage(r.Output)
	}
	return r.Output
}
