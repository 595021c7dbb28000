package store

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// CardStatus is where a card presented for approval stands.
type CardStatus string

// Card statuses.
const (
	CardPending  CardStatus = "Pending"
	CardApproved CardStatus = "Approved"
	CardRejected CardStatus = "Rejected"
)

// CardKind names the tables of cards that are approved or rejected.
type CardKind string

// Card kinds.
const (
	KindScope    CardKind = "scope"
	KindResearch CardKind = "research"
	KindPlan     CardKind = "plan"
)

func (k CardKind) table() (string, error) {
	switch k {
	case KindScope:
		return "scope_cards", nil
	case KindResearch:
		return "research", nil
	case KindPlan:
		return "plans", nil
	}
	return "", fmt.Errorf("invalid card kind %q: use scope, research or plan", k)
}

// ResolveCard approves or rejects a pending scope card, research card or
// plan; feedback is the user's reason (for a rejection, what the agent must
// revise).
func (o ops) ResolveCard(ctx context.Context, kind CardKind, id string, status CardStatus, feedback string) error {
	table, err := kind.table()
	if err != nil {
		return err
	}
	if status != CardApproved && status != CardRejected {
		return fmt.Errorf("invalid resolution %q: use Approved or Rejected", status)
	}
	return o.atomic(ctx, func(o ops) error {
		var cur CardStatus
		if err := o.q.QueryRowContext(ctx, `SELECT status FROM `+table+` WHERE id=?`, id).Scan(&cur); err != nil {
			return notFound(err, string(kind)+" card", id)
		}
		if cur != CardPending {
			return fmt.Errorf("%s card %s is already %s", kind, id, cur)
		}
		return o.exec(ctx, fmt.Sprintf("resolve %s card %s", kind, id), `UPDATE `+table+` SET status=?, feedback=?, resolved_at=? WHERE id=?`,
			status, feedback, stamp(o.clock()), id)
	})
}

// ScopeCard is submit_scope's card.
type ScopeCard struct {
	ID              string
	WorkflowID      string
	Title           string
	Description     string
	InScope         []string
	OutOfScope      []string
	Constraints     []string
	RecommendedPath string // quick or full
	Rationale       string
	Status          CardStatus
	Feedback        string
	CreatedAt       time.Time
	ResolvedAt      time.Time
}

// AddScopeCard stores a submitted scope card as Pending.
func (o ops) AddScopeCard(ctx context.Context, c *ScopeCard) error {
	switch {
	case strings.TrimSpace(c.Title) == "":
		return fmt.Errorf("scope card title is required")
	case c.RecommendedPath != "quick" && c.RecommendedPath != "full":
		return fmt.Errorf("invalid recommended_path %q: use quick or full", c.RecommendedPath)
	}
	ensureID(&c.ID, "scope")
	c.Status, c.Feedback, c.CreatedAt, c.ResolvedAt = CardPending, "", o.clock(), time.Time{}
	in, err1 := toJSON(c.InScope)
	out, err2 := toJSON(c.OutOfScope)
	cons, err3 := toJSON(c.Constraints)
	if err := firstErr(err1, err2, err3); err != nil {
		return fmt.Errorf("scope card: %w", err)
	}
	return o.exec(ctx, "add scope card", `INSERT INTO scope_cards (id, workflow_id, title, description, in_scope, out_of_scope, constraints,
		recommended_path, rationale, status, created_at) VALUES (?,?,?,?,?,?,?,?,?,?,?)`,
		c.ID, c.WorkflowID, c.Title, c.Description, in, out, cons, c.RecommendedPath, c.Rationale, c.Status, stamp(c.CreatedAt))
}

const scopeCols = `id, workflow_id, title, description, in_scope, out_of_scope, constraints, recommended_path, rationale, status, feedback, created_at, resolved_at`

func scanScope(row interface{ Scan(...any) error }) (ScopeCard, error) {
	var c ScopeCard
	var in, out, cons string
	if err := row.Scan(&c.ID, &c.WorkflowID, &c.Title, &c.Description, &in, &out, &cons, &c.RecommendedPath,
		&c.Rationale, &c.Status, &c.Feedback, stampTo(&c.CreatedAt), stampTo(&c.ResolvedAt)); err != nil {
		return ScopeCard{}, err
	}
	return c, firstErr(fromJSON(in, &c.InScope), fromJSON(out, &c.OutOfScope), fromJSON(cons, &c.Constraints))
}

// ScopeCards lists a workflow's scope cards, oldest first.
func (o ops) ScopeCards(ctx context.Context, workflowID string) ([]ScopeCard, error) {
	return queryAll(ctx, o, scanScope, "scope cards", `SELECT `+scopeCols+` FROM scope_cards WHERE workflow_id=? ORDER BY created_at, rowid`, workflowID)
}

// ApprovedScopeCard is the workflow's latest approved scope card.
func (o ops) ApprovedScopeCard(ctx context.Context, workflowID string) (ScopeCard, error) {
	return latestApproved(ctx, o, scanScope, "scope_cards", scopeCols, "approved scope card of workflow", workflowID)
}

// latestApproved is a workflow's latest approved card of table (its
// columns cols, scanned by scan); what names it when there is none.
func latestApproved[T any](ctx context.Context, o ops, scan func(interface{ Scan(...any) error }) (T, error), table, cols, what, workflowID string) (T, error) {
	return queryOne(ctx, o, scan, what, workflowID, `SELECT `+cols+` FROM `+table+` WHERE workflow_id=? AND status='Approved'
		ORDER BY created_at DESC, rowid DESC LIMIT 1`, workflowID)
}

// KeyFile is an important file found by research.
type KeyFile struct {
	Path       string `json:"path"`
	Purpose    string `json:"purpose"`
	LineRanges string `json:"lineRanges,omitempty"`
}

// Pattern is a convention observed across the codebase.
type Pattern struct {
	Category    string   `json:"category"`
	Description string   `json:"description"`
	Example     string   `json:"example"`
	Locations   []string `json:"locations"`
}

// Dependency is a library or module relevant to the work.
type Dependency struct {
	Name         string `json:"name"`
	Purpose      string `json:"purpose"`
	UsageExample string `json:"usageExample"`
}

// IntegrationPoint is where new behaviour attaches.
type IntegrationPoint struct {
	Location     string `json:"location"`
	Description  string `json:"description"`
	ExistingCode string `json:"existingCode"`
}

// Challenge is a risk and its mitigation.
type Challenge struct {
	Issue      string `json:"issue"`
	Mitigation string `json:"mitigation"`
}

// Research is submit_research's findings.
type Research struct {
	ID                string
	WorkflowID        string
	Summary           string
	KeyFiles          []KeyFile
	Patterns          []Pattern
	Dependencies      []Dependency
	IntegrationPoints []IntegrationPoint
	Challenges        []Challenge
	Recommendations   []string
	Status            CardStatus
	Feedback          string
	CreatedAt         time.Time
	ResolvedAt        time.Time
}

// AddResearch stores submitted research findings as Pending.
func (o ops) AddResearch(ctx context.Context, r *Research) error {
	if strings.TrimSpace(r.Summary) == "" {
		return fmt.Errorf("research summary is required")
	}
	ensureID(&r.ID, "research")
	r.Status, r.Feedback, r.CreatedAt, r.ResolvedAt = CardPending, "", o.clock(), time.Time{}
	cols := make([]string, 6)
	for i, v := range []any{r.KeyFiles, r.Patterns, r.Dependencies, r.IntegrationPoints, r.Challenges, r.Recommendations} {
		s, err := toJSON(v)
		if err != nil {
			return fmt.Errorf("research: %w", err)
		}
		cols[i] = s
	}
	return o.exec(ctx, "add research", `INSERT INTO research (id, workflow_id, summary, key_files, patterns, dependencies, integration_points,
		challenges, recommendations, status, created_at) VALUES (?,?,?,?,?,?,?,?,?,?,?)`,
		r.ID, r.WorkflowID, r.Summary, cols[0], cols[1], cols[2], cols[3], cols[4], cols[5], r.Status, stamp(r.CreatedAt))
}

const researchCols = `id, workflow_id, summary, key_files, patterns, dependencies, integration_points, challenges, recommendations, status, feedback, created_at, resolved_at`

func scanResearch(row interface{ Scan(...any) error }) (Research, error) {
	var r Research
	var kf, pat, dep, ip, ch, rec string
	if err := row.Scan(&r.ID, &r.WorkflowID, &r.Summary, &kf, &pat, &dep, &ip, &ch, &rec, &r.Status, &r.Feedback, stampTo(&r.CreatedAt), stampTo(&r.ResolvedAt)); err != nil {
		return Research{}, err
	}
	return r, firstErr(fromJSON(kf, &r.KeyFiles), fromJSON(pat, &r.Patterns), fromJSON(dep, &r.Dependencies),
		fromJSON(ip, &r.IntegrationPoints), fromJSON(ch, &r.Challenges), fromJSON(rec, &r.Recommendations))
}

// ResearchCards lists a workflow's research submissions, oldest first.
func (o ops) ResearchCards(ctx context.Context, workflowID string) ([]Research, error) {
	return queryAll(ctx, o, scanResearch, "research", `SELECT `+researchCols+` FROM research WHERE workflow_id=? ORDER BY created_at, rowid`, workflowID)
}

// ApprovedResearch is the workflow's latest approved research.
func (o ops) ApprovedResearch(ctx context.Context, workflowID string) (Research, error) {
	return latestApproved(ctx, o, scanResearch, "research", researchCols, "approved research of workflow", workflowID)
}

// queryAll runs a query and scans every row.
func queryAll[T any](ctx context.Context, o ops, scan func(interface{ Scan(...any) error }) (T, error), what, query string, args ...any) ([]T, error) {
	rows, err := o.q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", what, err)
	}
	defer rows.Close()
	var list []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", what, err)
		}
		list = append(list, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list %s: %w", what, err)
	}
	return list, nil
}

// queryOne runs a query for one row and scans it; no row is ErrNotFound
// for what id.
func queryOne[T any](ctx context.Context, o ops, scan func(interface{ Scan(...any) error }) (T, error), what, id, query string, args ...any) (T, error) {
	v, err := scan(o.q.QueryRowContext(ctx, query, args...))
	if err != nil {
		var zero T
		return zero, notFound(err, what, id)
	}
	return v, nil
}

// first is the first of the records a query by id listed (err its
// error); none is ErrNotFound for what id.
func first[T any](list []T, err error, what, id string) (T, error) {
	var zero T
	if err != nil {
		return zero, err
	}
	if len(list) == 0 {
		return zero, fmt.Errorf("%s %q: %w", what, id, ErrNotFound)
	}
	return list[0], nil
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
