package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// ReviewStatus is where a review stands.
type ReviewStatus string

// Review statuses.
const (
	ReviewPending   ReviewStatus = "Pending"
	ReviewCompleted ReviewStatus = "Completed"
)

// ReviewCard is one review of a diff: a workflow's branch against its base,
// or any range (WorkflowID "").
type ReviewCard struct {
	ID         string
	WorkflowID string
	BaseRef    string // as named, e.g. "main"
	HeadRef    string
	DiffBase   string // commit ids reviewed
	DiffHead   string
	Status     ReviewStatus
	// Recommendation is complete_review's: approve, reject or
	// manual_review ("" while pending).
	Recommendation string
	Summary        string
	CreatedAt      time.Time
	CompletedAt    time.Time
}

// CommentType is where a review comment is attached.
type CommentType string

// Comment types (add_line_comment, add_file_comment, add_review_comment).
const (
	CommentLine   CommentType = "line"
	CommentFile   CommentType = "file"
	CommentReview CommentType = "review"
)

// ReviewComment is one comment of a review. Lines are new-side line numbers
// of the diff.
type ReviewComment struct {
	ID          string
	ReviewID    string
	Type        CommentType
	FilePath    string
	StartLine   int
	EndLine     int // 0 for a single-line comment
	Severity    string
	Category    string
	Description string
	Suggestion  string
	// PreExisting is set when the commented line matches a baseline issue
	// (it was there before the workflow) rather than being new.
	PreExisting bool
	CreatedAt   time.Time
	// ResolvedBy names the revert that undid the lines the comment is on
	// ("" while it stands).
	ResolvedBy string
}

// ErrReviewNotFound is returned, unwrapped, for a missing review card. Its
// text is the review tools' error string; errors.Is(err, ErrNotFound) holds
// for it too.
var ErrReviewNotFound error = notFoundError("Review card not found")

// notFoundError is a not-found error with its own exact text.
type notFoundError string

func (e notFoundError) Error() string        { return string(e) }
func (e notFoundError) Is(target error) bool { return target == ErrNotFound }

// CheckComment validates a comment with the review tools' error strings.
func CheckComment(c ReviewComment) error {
	if c.Severity != "High" && c.Severity != "Medium" && c.Severity != "Low" {
		return fmt.Errorf("Invalid severity '%s'. Must be High, Medium, or Low.", c.Severity)
	}
	switch c.Type {
	case CommentLine:
		if strings.TrimSpace(c.FilePath) == "" {
			return fmt.Errorf("file_path is required for line comments")
		}
		if c.StartLine <= 0 {
			return fmt.Errorf("start_line must be a positive integer")
		}
		if c.EndLine != 0 && c.EndLine < c.StartLine {
			return fmt.Errorf("end_line must be greater than or equal to start_line")
		}
	case CommentFile:
		if strings.TrimSpace(c.FilePath) == "" {
			return fmt.Errorf("file_path is required for file comments")
		}
	case CommentReview:
	default:
		return fmt.Errorf("invalid comment type %q: use line, file or review", c.Type)
	}
	if strings.TrimSpace(c.Category) == "" {
		return fmt.Errorf("category is required")
	}
	if strings.TrimSpace(c.Description) == "" {
		return fmt.Errorf("description is required")
	}
	return nil
}

// CheckRecommendation validates complete_review's arguments with its error
// strings.
func CheckRecommendation(recommendation, summary string) error {
	switch recommendation {
	case "approve", "reject", "manual_review":
	default:
		return fmt.Errorf("Invalid recommendation '%s'. Must be one of: approve, reject, manual_review.", recommendation)
	}
	if strings.TrimSpace(summary) == "" {
		return fmt.Errorf("Summary is required.")
	}
	return nil
}

// CreateReview stores a Pending review card.
func (o ops) CreateReview(ctx context.Context, r *ReviewCard) error {
	ensureID(&r.ID, "review")
	r.Status, r.Recommendation, r.Summary, r.CreatedAt, r.CompletedAt = ReviewPending, "", "", o.clock(), time.Time{}
	return o.exec(ctx, "create review", `INSERT INTO review_cards (id, workflow_id, base_ref, head_ref, diff_base, diff_head, status, created_at)
		VALUES (?,?,?,?,?,?,?,?)`, r.ID, nullString(r.WorkflowID), r.BaseRef, r.HeadRef, r.DiffBase, r.DiffHead, r.Status, stamp(r.CreatedAt))
}

const reviewCols = `id, workflow_id, base_ref, head_ref, diff_base, diff_head, status, recommendation, summary, created_at, completed_at`

func scanReview(row interface{ Scan(...any) error }) (ReviewCard, error) {
	var r ReviewCard
	var wf sql.NullString
	if err := row.Scan(&r.ID, &wf, &r.BaseRef, &r.HeadRef, &r.DiffBase, &r.DiffHead, &r.Status, &r.Recommendation, &r.Summary,
		stampTo(&r.CreatedAt), stampTo(&r.CompletedAt)); err != nil {
		return ReviewCard{}, err
	}
	r.WorkflowID = wf.String
	return r, nil
}

// Review reads a review card; a missing one is ErrReviewNotFound.
func (o ops) Review(ctx context.Context, id string) (ReviewCard, error) {
	r, err := scanReview(o.q.QueryRowContext(ctx, `SELECT `+reviewCols+` FROM review_cards WHERE id=?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return ReviewCard{}, ErrReviewNotFound
	}
	if err != nil {
		return ReviewCard{}, fmt.Errorf("review %s: %w", id, err)
	}
	return r, nil
}

// LatestReview is the workflow's newest review card.
func (o ops) LatestReview(ctx context.Context, workflowID string) (ReviewCard, error) {
	r, err := scanReview(o.q.QueryRowContext(ctx, `SELECT `+reviewCols+` FROM review_cards WHERE workflow_id=?
		ORDER BY created_at DESC, rowid DESC LIMIT 1`, workflowID))
	if errors.Is(err, sql.ErrNoRows) {
		return ReviewCard{}, ErrReviewNotFound
	}
	if err != nil {
		return ReviewCard{}, fmt.Errorf("review of workflow %s: %w", workflowID, err)
	}
	return r, nil
}

// AddComment validates and stores a comment on a pending review.
func (o ops) AddComment(ctx context.Context, c *ReviewComment) error {
	if err := CheckComment(*c); err != nil {
		return err
	}
	ensureID(&c.ID, "comment")
	c.CreatedAt = o.clock()
	return o.atomic(ctx, func(o ops) error {
		r, err := o.Review(ctx, c.ReviewID)
		if err != nil {
			return err
		}
		if r.Status != ReviewPending {
			return fmt.Errorf("review %s is already completed", r.ID)
		}
		return o.exec(ctx, "add comment", `INSERT INTO review_comments (id, review_id, type, file_path, start_line, end_line, severity,
			category, description, suggestion, pre_existing, created_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)`,
			c.ID, c.ReviewID, c.Type, c.FilePath, c.StartLine, c.EndLine, c.Severity, c.Category, c.Description, c.Suggestion,
			c.PreExisting, stamp(c.CreatedAt))
	})
}

// Comments lists a review's comments in the order they were made.
func (o ops) Comments(ctx context.Context, reviewID string) ([]ReviewComment, error) {
	return queryAll(ctx, o, func(row interface{ Scan(...any) error }) (ReviewComment, error) {
		var c ReviewComment
		err := row.Scan(&c.ID, &c.ReviewID, &c.Type, &c.FilePath, &c.StartLine, &c.EndLine, &c.Severity, &c.Category,
			&c.Description, &c.Suggestion, &c.PreExisting, stampTo(&c.CreatedAt), &c.ResolvedBy)
		return c, err
	}, "review comments", `SELECT id, review_id, type, file_path, start_line, end_line, severity, category, description, suggestion,
		pre_existing, created_at, resolved_by FROM review_comments WHERE review_id=? ORDER BY created_at, rowid`, reviewID)
}

// CompleteReview records complete_review's recommendation and summary.
func (o ops) CompleteReview(ctx context.Context, id, recommendation, summary string) error {
	if err := CheckRecommendation(recommendation, summary); err != nil {
		return err
	}
	return o.atomic(ctx, func(o ops) error {
		r, err := o.Review(ctx, id)
		if err != nil {
			return err
		}
		if r.Status != ReviewPending {
			return fmt.Errorf("review %s is already completed", id)
		}
		return o.exec(ctx, fmt.Sprintf("complete review %s", id), `UPDATE review_cards SET status='Completed', recommendation=?, summary=?, completed_at=? WHERE id=?`,
			recommendation, summary, stamp(o.clock()), id)
	})
}
