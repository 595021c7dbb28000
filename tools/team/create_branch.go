package team

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/autarch-dev/autarch/tools"
)

// BranchPrefix starts every branch a job creates.
const BranchPrefix = "ai/"

// maxBranchName bounds the name the model gives.
const maxBranchName = 100

type createBranchParams struct {
	Reason     string `json:"reason"`
	Name       string `json:"name" jsonschema:"Branch name, e.g. fix-login-timeout (prefixed with ai/<job-id-prefix>/)"`
	BaseBranch string `json:"baseBranch,omitempty" jsonschema:"Branch (or commit) to start from (default: the repository's default branch)"`
}

func newCreateBranch(job Job, lock sync.Locker) tools.Tool {
	return tools.DefineWith(tools.Traits{Effect: tools.EffectExecute, Category: tools.CategoryMutating}, "create_branch", describe("create_branch"), tools.Write, func(ctx context.Context, s *tools.Session, p createBranchParams) (tools.Result, error) {
		if job == nil {
			return noJob("create_branch"), nil
		}
		return createBranch(ctx, s, job, lock, p)
	})
}

// JobBranch is the branch a job's create_branch makes for name:
// ai/<first 8 characters of the job id>/<name>.
func JobBranch(jobID, name string) string {
	return BranchPrefix + jobPrefix(jobID) + "/" + name
}

func jobPrefix(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

func createBranch(ctx context.Context, s *tools.Session, job Job, lock sync.Locker, p createBranchParams) (tools.Result, error) {
	fail := func(msg string) (tools.Result, error) {
		return failure("branch_error", msg, map[string]any{"created": false}), nil
	}
	name := strings.TrimPrefix(strings.TrimSpace(p.Name), BranchPrefix+jobPrefix(job.ID())+"/")
	if msg := checkBranchName(name); msg != "" {
		return fail(msg)
	}
	if strings.HasPrefix(p.BaseBranch, "-") {
		return fail(fmt.Sprintf("baseBranch %q is not accepted: name a branch, tag or commit", p.BaseBranch))
	}
	w, err := openWorktree(ctx, s)
	if errors.Is(err, errNoRepository) {
		return fail(err.Error())
	}
	if err != nil {
		return tools.Result{}, err
	}
	if msg, err := w.requireLinked(ctx, "create_branch"); err != nil || msg != "" {
		if err != nil {
			return tools.Result{}, err
		}
		return fail(msg)
	}
	branch := JobBranch(job.ID(), name)
	if _, err := w.run(ctx, "check-ref-format", "refs/heads/"+branch); err != nil {
		return fail(fmt.Sprintf("%q is not a valid git branch name: use letters, digits, '-', '_', '.' and '/'", branch))
	}
	lock.Lock()
	defer lock.Unlock()
	base, err := w.base(ctx, p.BaseBranch)
	if err != nil {
		return fail(err.Error())
	}
	current, err := w.branch(ctx)
	if err != nil {
		return tools.Result{}, err
	}
	exists, err := w.exists(ctx, "refs/heads/"+branch)
	if err != nil {
		return tools.Result{}, err
	}
	switch {
	case current == branch:
	case exists:
		if _, err := w.run(ctx, "switch", "--no-guess", "--end-of-options", branch); err != nil {
			return fail("switching to the existing branch " + branch + " failed: " + gitMessage(err))
		}
	default:
		if _, err := w.run(ctx, "switch", "--no-track", "-c", branch, "--end-of-options", base); err != nil {
			return fail("creating " + branch + " from " + base + " failed: " + gitMessage(err))
		}
	}
	if err := job.BranchCreated(ctx, branch, base); err != nil {
		return tools.Result{}, fmt.Errorf("recording the job's branch: %w", err)
	}
	return tools.JSONResult(map[string]any{"branchName": branch, "basedOn": base, "created": !exists}, false), nil
}

// base resolves the base branch: the one given, else the repository's
// default branch (origin/HEAD, else main, else master, else what is
// checked out).
func (w *worktree) base(ctx context.Context, given string) (string, error) {
	if given != "" {
		ok, err := w.exists(ctx, given)
		if err != nil {
			return "", err
		}
		if !ok {
			return "", fmt.Errorf("baseBranch %q is not a branch, tag or commit of this repository; leave it out for the default branch", given)
		}
		return given, nil
	}
	if d := w.defaultBranch(ctx, ""); d != "" {
		return d, nil
	}
	if cur, err := w.branch(ctx); err == nil && cur != "" {
		return cur, nil
	}
	return w.text(ctx, "rev-parse", "--verify", "HEAD")
}

// checkBranchName applies git check-ref-format's rules to the model's
// part of the name, and a conservative alphabet on top; it says what is
// wrong, or "".
func checkBranchName(name string) string {
	const accepted = "use letters, digits, '-', '_', '.' and '/' (e.g. fix-login-timeout)"
	switch {
	case name == "":
		return "name is empty: " + accepted
	case len(name) > maxBranchName:
		return fmt.Sprintf("name is %d bytes; keep it to %d", len(name), maxBranchName)
	case name == "@", strings.Contains(name, "@{"):
		return fmt.Sprintf("name %q may not be '@' or contain '@{': %s", name, accepted)
	case strings.Contains(name, ".."), strings.Contains(name, "//"):
		return fmt.Sprintf("name %q may not contain '..' or '//': %s", name, accepted)
	case strings.HasPrefix(name, "-"), strings.HasPrefix(name, "/"), strings.HasSuffix(name, "/"), strings.HasSuffix(name, "."):
		return fmt.Sprintf("name %q may not start with '-' or '/' nor end with '/' or '.': %s", name, accepted)
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-_./", c)) {
			return fmt.Sprintf("name %q contains %q: %s", name, c, accepted)
		}
	}
	for _, part := range strings.Split(name, "/") {
		if strings.HasPrefix(part, ".") || strings.HasSuffix(part, ".lock") {
			return fmt.Sprintf("name %q has a component starting with '.' or ending in '.lock': %s", name, accepted)
		}
	}
	return ""
}
