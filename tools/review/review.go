// Package review holds the review agent's tools (spec/autarch-tools.md
// "Review Tools"): get_diff, get_scope_card, add_line_comment,
// add_file_comment and add_review_comment. They act on one review through a
// Backend, which the workflow engine (or `autarch review`) provides;
// complete_review is a terminal tool (package terminal).
package review

import (
	"context"
	"errors"

	"github.com/autarch-dev/autarch/tools"
)

// Comment is one comment the review agent adds. Lines are new-side line
// numbers of the reviewed diff.
type Comment struct {
	// Type is "line", "file" or "review".
	Type        string
	FilePath    string
	StartLine   int
	EndLine     int // 0 for a single-line comment
	Severity    string
	Category    string
	Description string
	// Suggestion replaces the commented lines (line comments; optional).
	Suggestion string
}

// commentBody is what every comment tool's call says of its finding,
// whatever the comment is attached to (a line, a file, the review).
type commentBody struct {
	Severity    string `json:"severity" jsonschema:"The severity level: High, Medium, or Low"`
	Category    string `json:"category" jsonschema:"The category of the comment (e.g., security, performance, style, bug, architecture)"`
	Description string `json:"description" jsonschema:"The description/content of the comment"`
}

// Scope is the approved scope card, as get_scope_card returns it.
type Scope struct {
	Title       string   `json:"title"`
	Description string   `json:"description"`
	InScope     []string `json:"in_scope"`
	OutOfScope  []string `json:"out_of_scope"`
	Constraints []string `json:"constraints"`
}

// Backend is the review the tools act on.
type Backend interface {
	// Diff is the unified diff under review; ErrNoDiff when there is none.
	Diff(ctx context.Context) (string, error)
	// ScopeCard is the approved scope card; ErrNoScope when there is none.
	ScopeCard(ctx context.Context) (Scope, error)
	// AddComment validates and stores a comment and returns its id. A
	// comment the model got wrong is reported as an *Invalid error whose
	// text is the spec's error string.
	AddComment(ctx context.Context, c Comment) (string, error)
}

// Errors a Backend returns for what does not exist.
var (
	ErrNoDiff  = errors.New("Diff artifact not found")
	ErrNoScope = errors.New("Scope card not found")
)

// Invalid is a comment rejected for the model's mistake; its text is
// handed to the model.
type Invalid struct{ Msg string }

func (e *Invalid) Error() string { return e.Msg }

// Tools returns the review tools bound to a backend.
func Tools(b Backend) []tools.Tool {
	return []tools.Tool{newGetDiff(b), newGetScopeCard(b), newAddLineComment(b), newAddFileComment(b), newAddReviewComment(b)}
}

// Unbound are the review tools bound to no review, for listings (`autarch
// tools`): names, descriptions and schemas as the review agent gets them;
// a call answers that there is nothing to review.
func Unbound() []tools.Tool { return Tools(noReview{}) }

// noReview is the backend of Unbound.
type noReview struct{}

func (noReview) Diff(context.Context) (string, error)     { return "", ErrNoDiff }
func (noReview) ScopeCard(context.Context) (Scope, error) { return Scope{}, ErrNoScope }
func (noReview) AddComment(context.Context, Comment) (string, error) {
	return "", &Invalid{Msg: "No review is running: comments are added by the review agent during a review."}
}

// added stores a comment and answers with the spec's shape.
func added(ctx context.Context, b Backend, c Comment, message string) (tools.Result, error) {
	id, err := b.AddComment(ctx, c)
	var inv *Invalid
	switch {
	case errors.As(err, &inv):
		return tools.OpErrorResult(inv.Msg), nil
	case err != nil:
		return tools.Result{}, err
	}
	return tools.JSONResult(map[string]any{"success": true, "comment_id": id, "message": message}, false), nil
}
