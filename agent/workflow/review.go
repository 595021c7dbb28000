package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/tools/review"
	"github.com/autarch-dev/autarch/tools/terminal"
	"github.com/autarch-dev/autarch/workspace/git"
)

// review runs the review agent over the workflow branch against its base.
func (e *Engine) review(ctx context.Context, wf store.Workflow) error {
	if e.cfg.DryRun {
		return e.completeDryRun(ctx, wf)
	}
	gw, err := e.worktree(ctx, wf)
	if err != nil {
		return err
	}
	head, err := gw.Head(ctx)
	if err != nil {
		return err
	}
	pinned, err := e.pinned(ctx, wf)
	if err != nil {
		return err
	}
	card, err := e.reviewCard(ctx, store.ReviewCard{WorkflowID: wf.ID, BaseRef: wf.BaseBranch, HeadRef: wf.WorkflowBranch, DiffBase: wf.BaseCommit, DiffHead: head})
	if err != nil {
		return err
	}
	_, err = e.runReview(ctx, wf, card, gw.Worktree, pinned)
	if err != nil {
		return e.stageErr(ctx, wf, err)
	}
	if err := e.next(ctx, wf); err != nil {
		return err
	}
	// The work is on the workflow branch; the worktree is no longer needed.
	if err := e.cfg.Repo.RemoveWorkflow(ctx, wf.Name, git.RemoveOptions{}); err != nil {
		return err
	}
	return e.finish(ctx, wf, store.WorkflowCompleted, "review completed")
}

// reviewCard continues the workflow's pending review of the same commits,
// or creates one.
func (e *Engine) reviewCard(ctx context.Context, want store.ReviewCard) (store.ReviewCard, error) {
	if want.WorkflowID != "" {
		last, err := e.cfg.Store.LatestReview(ctx, want.WorkflowID)
		if err == nil && last.Status == store.ReviewPending && last.DiffBase == want.DiffBase && last.DiffHead == want.DiffHead {
			return last, nil
		}
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return store.ReviewCard{}, err
		}
	}
	if err := e.cfg.Store.CreateReview(ctx, &want); err != nil {
		return store.ReviewCard{}, err
	}
	return want, nil
}

// ReviewRequest is a review outside a workflow: HEAD (or Head) of the
// user's repository against Base.
type ReviewRequest struct {
	Base string
	Head string // "" for HEAD
}

// ReviewResult is a finished review with its comments.
type ReviewResult struct {
	Card     store.ReviewCard      `json:"card"`
	Comments []store.ReviewComment `json:"comments"`
}

// ErrNothingToReview is returned by Review for an empty range; no model is called.
var ErrNothingToReview = errors.New("nothing to review")

// Review reviews any branch or range of the user's repository: the agent
// reads the user's folder (read-only) and comments on the diff Base...Head.
// An empty range is ErrNothingToReview, without a model call.
func (e *Engine) Review(ctx context.Context, req ReviewRequest) (ReviewResult, error) {
	if strings.TrimSpace(req.Base) == "" {
		return ReviewResult{}, errors.New("review needs a base: a branch, tag or commit to compare against")
	}
	head := req.Head
	if head == "" {
		head = "HEAD"
	}
	base, err := e.cfg.Repo.ResolveCommit(ctx, req.Base)
	if err != nil {
		return ReviewResult{}, fmt.Errorf("base %q: %w", req.Base, err)
	}
	headCommit, err := e.cfg.Repo.ResolveCommit(ctx, head)
	if err != nil {
		return ReviewResult{}, fmt.Errorf("head %q: %w", head, err)
	}
	if base == headCommit {
		return ReviewResult{}, fmt.Errorf("%w: %s and %s are the same commit (%s); commit the changes to review on a branch, or compare with an older base", ErrNothingToReview, req.Base, head, short(base))
	}
	if stats, err := e.cfg.Repo.DiffStats(ctx, base, headCommit); err != nil {
		return ReviewResult{}, err
	} else if stats.Files == 0 {
		return ReviewResult{}, fmt.Errorf("%w: %s..%s changes no file; commit the changes to review, or compare with another base", ErrNothingToReview, req.Base, head)
	}
	card, err := e.reviewCard(ctx, store.ReviewCard{BaseRef: req.Base, HeadRef: head, DiffBase: base, DiffHead: headCommit})
	if err != nil {
		return ReviewResult{}, err
	}
	wf := store.Workflow{ID: "", Name: "review", Stage: string(StageReview)}
	return e.runReview(ctx, wf, card, e.cfg.Repo.Top(), "")
}

// runReview runs the review agent until complete_review.
func (e *Engine) runReview(ctx context.Context, wf store.Workflow, card store.ReviewCard, root, pinned string) (ReviewResult, error) {
	diff, err := e.cfg.Repo.Diff(ctx, card.DiffBase, card.DiffHead)
	if err != nil {
		return ReviewResult{}, err
	}
	b := &reviewBackend{e: e, wf: wf, card: card, diff: diff}
	extra := append(review.Tools(b), e.completeReviewTool(card.ID))
	conv, err := e.open(ctx, wf, StageReview, "", talkOptions{Root: root, Extra: extra, Pinned: pinned})
	if err != nil {
		return ReviewResult{}, err
	}
	defer conv.close()
	input := fmt.Sprintf("Review the changes %s..%s (%d files, +%d −%d): read the diff with get_diff and the scope with get_scope_card, comment, then call complete_review.",
		short(card.DiffBase), short(card.DiffHead), diff.Stats.Files, diff.Stats.Additions, diff.Stats.Deletions)
	err = conv.talk(ctx, input, endsWith(terminal.CompleteReview, "Call complete_review to finish the review.", func(_ context.Context, p terminal.ReviewDone) (string, bool, error) {
		e.emit(Event{Kind: "card", WorkflowID: wf.ID, Stage: string(StageReview), Status: "review " + p.Recommendation, Card: &editor.CardEvent{Kind: editor.CardReview, Status: editor.CardSubmitted, Recommendation: p.Recommendation}, Text: p.Summary})
		return "", true, nil
	}))
	if err != nil {
		return ReviewResult{}, err
	}
	card, err = e.cfg.Store.Review(ctx, card.ID)
	if err != nil {
		return ReviewResult{}, err
	}
	comments, err := e.cfg.Store.Comments(ctx, card.ID)
	return ReviewResult{Card: card, Comments: comments}, err
}

// completeReviewTool is complete_review recording the review's result on
// its card; a card that is gone (its workflow was deleted meanwhile) is
// the spec's "Review card not found" for the model, not a Go error.
func (e *Engine) completeReviewTool(cardID string) tools.Tool {
	inner := terminalTool("review", terminal.CompleteReview)
	return gatedTool{Tool: inner, check: func(ctx context.Context, s *tools.Session, args json.RawMessage) (*tools.Result, error) {
		var p terminal.ReviewDone
		if err := json.Unmarshal(args, &p); err != nil {
			return nil, fmt.Errorf("complete_review arguments: %w", err)
		}
		err := e.cfg.Store.CompleteReview(ctx, cardID, p.Recommendation, p.Summary)
		if errors.Is(err, store.ErrReviewNotFound) {
			res := tools.OpErrorResult(store.ErrReviewNotFound.Error())
			return &res, nil
		}
		return nil, err
	}}
}

// terminalTool is one of a role's terminal tools, to wrap in a gatedTool.
func terminalTool(role, name string) tools.Tool {
	for _, t := range terminal.ForRole(role) {
		if t.Name() == name {
			return t
		}
	}
	panic(fmt.Sprintf("role %s has no terminal tool %s", role, name)) // a build defect, caught by every scenario
}

// reviewBackend is the review tools' view of one review.
type reviewBackend struct {
	e    *Engine
	wf   store.Workflow
	card store.ReviewCard
	diff *git.Diff
}

func (b *reviewBackend) Diff(ctx context.Context) (string, error) {
	if b.diff == nil || len(b.diff.Files) == 0 {
		return "", review.ErrNoDiff
	}
	return b.diff.Patch, nil
}

func (b *reviewBackend) ScopeCard(ctx context.Context) (review.Scope, error) {
	if b.wf.ID == "" {
		return review.Scope{}, review.ErrNoScope
	}
	sc, err := b.e.cfg.Store.ApprovedScopeCard(ctx, b.wf.ID)
	if errors.Is(err, store.ErrNotFound) {
		return review.Scope{}, review.ErrNoScope
	}
	if err != nil {
		return review.Scope{}, err
	}
	return review.Scope{Title: sc.Title, Description: sc.Description, InScope: sc.InScope, OutOfScope: sc.OutOfScope, Constraints: sc.Constraints}, nil
}

func (b *reviewBackend) AddComment(ctx context.Context, c review.Comment) (string, error) {
	rc := store.ReviewComment{ReviewID: b.card.ID, Type: store.CommentType(c.Type), FilePath: path.Clean(strings.TrimPrefix(c.FilePath, "./")),
		StartLine: c.StartLine, EndLine: c.EndLine, Severity: c.Severity, Category: c.Category, Description: c.Description, Suggestion: c.Suggestion}
	if strings.TrimSpace(c.FilePath) == "" {
		rc.FilePath = ""
	}
	if err := store.CheckComment(rc); err != nil {
		return "", &review.Invalid{Msg: err.Error()}
	}
	if rc.Type != store.CommentReview {
		fd, ok := b.diff.File(rc.FilePath)
		if !ok {
			return "", &review.Invalid{Msg: fmt.Sprintf("%s is not part of the diff under review; comment on a changed file (get_diff lists them) or use add_review_comment", rc.FilePath)}
		}
		if rc.Type == store.CommentLine {
			end := rc.EndLine
			if end == 0 {
				end = rc.StartLine
			}
			rc.PreExisting = !addsAny(fd, rc.StartLine, end)
		}
	}
	err := b.e.cfg.Store.AddComment(ctx, &rc)
	if errors.Is(err, store.ErrReviewNotFound) {
		return "", &review.Invalid{Msg: store.ErrReviewNotFound.Error()}
	}
	if err != nil {
		return "", err
	}
	b.e.emit(Event{Kind: "review_comment", WorkflowID: b.wf.ID, Stage: string(StageReview), Status: rc.Severity,
		Text: fmt.Sprintf("%s:%d %s", rc.FilePath, rc.StartLine, rc.Description)})
	return rc.ID, nil
}

// addsAny reports whether the change added any of the new-side lines
// start..end; a comment on lines it did not add is about pre-existing code.
func addsAny(fd *git.FileDiff, start, end int) bool {
	for _, h := range fd.Hunks {
		for _, l := range h.Lines {
			if l.Kind == git.LineAdded && l.New >= start && l.New <= end {
				return true
			}
		}
	}
	return false
}

var _ review.Backend = (*reviewBackend)(nil)
var _ tools.Tool = gatedTool{}
