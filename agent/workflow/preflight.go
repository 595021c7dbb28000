package workflow

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/tools/terminal"
	"github.com/autarch-dev/autarch/workspace/git"
)

// worktree opens the workflow's branch and linked worktree, creating them
// the first time, and records where they are.
func (e *Engine) worktree(ctx context.Context, wf store.Workflow) (*git.Workflow, error) {
	names, err := e.cfg.Repo.Workflows(ctx)
	if err != nil {
		return nil, err
	}
	var gw *git.Workflow
	if contains(names, wf.Name) {
		gw, err = e.cfg.Repo.OpenWorkflow(ctx, wf.Name, wf.BaseCommit)
	} else {
		gw, err = e.cfg.Repo.CreateWorkflow(ctx, wf.Name, wf.BaseCommit)
	}
	if err != nil {
		return nil, err
	}
	if wf.WorktreePath != gw.Worktree || wf.WorkflowBranch != gw.Branch {
		wf.WorktreePath, wf.WorkflowBranch = gw.Worktree, gw.Branch
		if err := e.cfg.Store.UpdateWorkflow(ctx, &wf); err != nil {
			return nil, err
		}
	}
	return gw, nil
}

func contains(names []string, name string) bool {
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}

// preflight prepares the worktree: the preflight agent installs
// dependencies and records baselines. Modifying a tracked file, failing or
// timing out abandons the workflow and removes its worktree.
func (e *Engine) preflight(ctx context.Context, wf store.Workflow) error {
	gw, root, err := e.workspace(ctx, wf)
	if err != nil {
		return err
	}
	wf, err = e.cfg.Store.Workflow(ctx, wf.ID)
	if err != nil {
		return err
	}
	setup := store.PreflightSetup{WorkflowID: wf.ID, ChannelID: wf.ID + "/preflight", ProgressMessage: "starting the preflight agent"}
	if err := e.cfg.Store.StartPreflight(ctx, &setup); err != nil {
		return err
	}
	e.emit(Event{Kind: "stage", WorkflowID: wf.ID, Stage: wf.Stage, Status: "running", Worktree: root, Text: "preflight in " + root})
	pctx, cancel := context.WithTimeoutCause(ctx, e.cfg.PreflightTimeout, errPreflightTimeout)
	defer cancel()
	if m := e.masksOf(wf.ID, root); m != nil && gw != nil {
		gw.FollowChanges(m) // its status begins what the pulses' listings build on (issue 35)
	}
	result, status, failure, err := e.runPreflight(pctx, wf, gw, root, setup.ID)
	if errors.Is(context.Cause(pctx), errPreflightTimeout) && ctx.Err() == nil {
		failure, err = fmt.Sprintf("preflight timed out after %s", e.cfg.PreflightTimeout), nil
	}
	if err != nil {
		return err
	}
	if failure != "" {
		return e.abandon(ctx, wf, setup.ID, failure)
	}
	if gw != nil {
		// The status preflight ended with (nothing has run since) names
		// the artifacts: another would stat every file again.
		record := gw.RecordArtifacts
		if status != nil {
			record = func(ctx context.Context) ([]string, error) { return gw.RecordArtifactsOf(ctx, *status) }
		}
		if _, err := record(ctx); err != nil {
			return err
		}
	}
	if err := e.cfg.Store.CompletePreflight(ctx, setup.ID, result); err != nil {
		return err
	}
	if err := e.addQuickPulse(ctx, wf); err != nil {
		return err
	}
	return e.next(ctx, wf)
}

var errPreflightTimeout = errors.New("preflight timed out")

// preflightProgress writes each of the preflight agent's tool calls, with
// its reason, as the preflight's progress message.
func (e *Engine) preflightProgress(setupID string) func(ctx context.Context, tool, reason string) {
	return func(ctx context.Context, tool, reason string) {
		msg := tool
		if reason != "" {
			msg += ": " + reason
		}
		if err := e.cfg.Store.SetPreflightProgress(context.WithoutCancel(ctx), setupID, msg); err != nil {
			e.cfg.Log.Warn("record preflight progress", "err", err)
		}
	}
}

// runPreflight runs the preflight agent in root (gw's worktree; a dry
// run's gw is nil); status is the worktree's when it completed (nil if
// not taken), failure explains why preflight failed ("" when it
// completed).
func (e *Engine) runPreflight(ctx context.Context, wf store.Workflow, gw *git.Workflow, root, setupID string) (result store.PreflightResult, status *git.Status, failure string, err error) {
	submodules, err := e.submodules(ctx, gw, setupID)
	if err != nil {
		return result, status, "", err
	}
	conv, err := e.open(ctx, wf, StagePreflight, "", talkOptions{Root: root, OnToolCall: e.preflightProgress(setupID)})
	if err != nil {
		return result, status, "", err
	}
	defer conv.close()
	input := "Prepare this worktree for the pulses: install dependencies, run the build, lint and tests once " +
		"(run_tests and run_lint record what they find as baselines), record any other pre-existing issue (seen only in shell output) " +
		"with record_baseline, then call complete_preflight. Do not run git submodule commands: commands cannot write the repository. " +
		submodules + " " +
		"Set buildSuccess false only when the build cannot work here (the workflow then stops before any pulse): " +
		"a build error recorded as a baseline is not a failed build."
	err = conv.talk(ctx, input, endsWith(terminal.CompletePreflight, "Call complete_preflight when the setup is done.", func(ctx context.Context, p terminal.Preflight) (string, bool, error) {
		if gw != nil {
			st, err := gw.Status(ctx)
			if err != nil {
				return "", false, err
			}
			status = &st
			if changed := st.TrackedChanges(); len(changed) > 0 {
				failure = "preflight modified tracked files: " + strings.Join(changed, ", ")
				return "", true, nil
			}
		}
		for _, b := range conv.sess.Baselines() {
			if err := e.cfg.Store.AddBaseline(ctx, &store.Baseline{WorkflowID: wf.ID, IssueType: b.IssueType, Source: b.Source, Pattern: b.Pattern,
				FilePath: b.FilePath, Description: b.Description}); err != nil {
				return "", false, err
			}
		}
		result = store.PreflightResult{Summary: p.Summary, SetupCommands: p.SetupCommands, BuildSuccess: p.BuildSuccess, BaselinesRecorded: len(conv.sess.Baselines())}
		if !p.BuildSuccess {
			// 004-4: no pulse starts on an environment that does not build.
			failure = "preflight reports that the build does not succeed (" + strings.TrimSpace(p.Summary) + "): make the project build on the base branch " +
				"(dependencies reachable, submodules checked out in the repository), then start the workflow again"
		}
		return "", true, nil
	}))
	var f *stageFailure
	if errors.As(err, &f) {
		return result, status, "preflight failed: " + f.reason, nil
	}
	return result, status, failure, err
}

// submodules checks out, on the host, the submodules of the worktree's
// commit (git.Workflow.InitSubmodules) and says to the preflight agent
// what was done; a submodule that cannot be fetched is the agent's to
// judge (a build that needs it does not succeed), not a broken engine.
func (e *Engine) submodules(ctx context.Context, gw *git.Workflow, setupID string) (string, error) {
	const missing = "If the build needs submodules that are not checked out, say so in the summary."
	if gw == nil {
		return missing, nil // a dry run has no worktree
	}
	if err := e.cfg.Store.SetPreflightProgress(ctx, setupID, "checking out the submodules"); err != nil {
		e.cfg.Log.Warn("record preflight progress", "err", err)
	}
	paths, err := gw.InitSubmodules(ctx)
	var exit *git.ExitError
	switch {
	case ctx.Err() != nil:
		return "", ctx.Err()
	case errors.Is(err, git.ErrGitmodulesChanged), errors.As(err, &exit):
		e.cfg.Log.Warn("preflight: submodules", "err", err)
		return "Autarch could not check out the submodules (it fetches them over file and https URLs only): " + err.Error() + ". " + missing, nil
	case err != nil:
		return "", err
	case len(paths) == 0:
		return missing, nil
	}
	return "Autarch checked out the submodules (git submodule update --init --recursive): " + strings.Join(paths, ", ") + ".", nil
}

// abandon ends a workflow whose preflight failed: its worktree and branch
// (which hold nothing but the base) are removed.
func (e *Engine) abandon(ctx context.Context, wf store.Workflow, setupID, reason string) error {
	ctx = context.WithoutCancel(ctx)
	if err := e.cfg.Store.FailPreflight(ctx, setupID, reason); err != nil {
		return err
	}
	if !e.cfg.DryRun {
		if err := e.cfg.Repo.RemoveWorkflow(ctx, wf.Name, git.RemoveOptions{DeleteBranch: true, DeletePulseBranches: true}); err != nil {
			return err
		}
	}
	if err := e.advance(ctx, wf, StageAbandoned); err != nil {
		return err
	}
	if err := e.finish(ctx, wf, store.WorkflowAbandoned, reason); err != nil {
		return err
	}
	return &Halt{Stage: StagePreflight, Reason: reason}
}

// addQuickPulse gives a quick-path workflow its single pulse, made from
// the scope card.
func (e *Engine) addQuickPulse(ctx context.Context, wf store.Workflow) error {
	if Path(wf.Path) != PathQuick {
		return nil
	}
	existing, err := e.cfg.Store.WorkflowPulses(ctx, wf.ID)
	if err != nil || len(existing) > 0 {
		return err
	}
	sc, err := e.cfg.Store.ApprovedScopeCard(ctx, wf.ID)
	if err != nil {
		return err
	}
	return e.cfg.Store.AddPulse(ctx, &store.Pulse{WorkflowID: wf.ID, PlannedID: "pulse-1", Title: sc.Title,
		Description: sc.Description + "\n" + bullets(sc.InScope), EstimatedSize: "small"})
}

// baselines are preflight's recorded issues, for the pulses' sessions.
func (e *Engine) baselines(ctx context.Context, wf store.Workflow) ([]tools.Baseline, error) {
	bs, err := e.cfg.Store.Baselines(ctx, wf.ID)
	if err != nil {
		return nil, err
	}
	out := make([]tools.Baseline, len(bs))
	for i, b := range bs {
		out[i] = tools.Baseline{ID: b.ID, IssueType: b.IssueType, Source: b.Source, Pattern: b.Pattern, FilePath: b.FilePath, Description: b.Description}
	}
	return out, nil
}
