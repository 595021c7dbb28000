package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/autarch-dev/autarch/agent/run"
)

// JobStatus is where a job stands.
type JobStatus string

// Job statuses.
const (
	// JobRunning: a process runs the job's agent (or did, until it was
	// killed: Recover turns that into Stopped).
	JobRunning JobStatus = "Running"
	// JobWaiting: the agent asked a human (request_human_review) and waits
	// for the answer.
	JobWaiting JobStatus = "Waiting"
	// JobStopped: stopped by its budget, its iteration limit, the user or
	// a killed process; it can be resumed.
	JobStopped JobStatus = "Stopped"
	// JobFailed: a run failed (the model provider refused, …); resuming it
	// continues from its last message.
	JobFailed JobStatus = "Failed"
	// JobDone: the agent committed its work on the job's branch.
	JobDone JobStatus = "Done"
)

func checkJobStatus(s JobStatus) error {
	switch s {
	case JobRunning, JobWaiting, JobStopped, JobFailed, JobDone:
		return nil
	}
	return fmt.Errorf("invalid job status %q: use Running, Waiting, Stopped, Failed or Done", s)
}

// Job is one job: a task, its agent's budget and what it spent, its
// branch and worktree.
type Job struct {
	ID           string
	Name         string
	Task         string
	Mode         string // mechanic or genius
	Status       JobStatus
	StatusReason string
	// BaseRef is the base as the user named it; BaseCommit what it named
	// when the job started.
	BaseRef    string
	BaseCommit string
	// Branch is the ai/… branch create_branch made ("" before).
	Branch       string
	WorktreePath string
	// TokenBudget caps prompt+completion tokens, IterationLimit model
	// calls, over the job's whole life (0: no cap).
	TokenBudget      int64
	IterationLimit   int
	Iterations       int
	PromptTokens     int64
	CompletionTokens int64
	Cost             float64
	CreatedAt        time.Time
	UpdatedAt        time.Time
	EndedAt          time.Time
}

// Tokens is the job's prompt and completion tokens.
func (j Job) Tokens() int64 { return j.PromptTokens + j.CompletionTokens }

const jobColumns = `id, name, task, mode, status, status_reason, base_ref, base_commit, branch, worktree_path, token_budget,
	iteration_limit, iterations, prompt_tokens, completion_tokens, cost, created_at, updated_at, ended_at`

func scanJob(row interface{ Scan(...any) error }) (Job, error) {
	var j Job
	err := row.Scan(&j.ID, &j.Name, &j.Task, &j.Mode, &j.Status, &j.StatusReason, &j.BaseRef, &j.BaseCommit, &j.Branch, &j.WorktreePath,
		&j.TokenBudget, &j.IterationLimit, &j.Iterations, &j.PromptTokens, &j.CompletionTokens, &j.Cost, stampTo(&j.CreatedAt), stampTo(&j.UpdatedAt), stampTo(&j.EndedAt))
	return j, err
}

// CreateJob records a new Running job; an empty ID is made.
func (o ops) CreateJob(ctx context.Context, j *Job) error {
	switch {
	case strings.TrimSpace(j.Task) == "":
		return fmt.Errorf("create job: the task is empty")
	case j.Mode != "mechanic" && j.Mode != "genius":
		return fmt.Errorf("create job: mode %q is not accepted: use mechanic or genius", j.Mode)
	case j.BaseCommit == "":
		return fmt.Errorf("create job: the base commit is required")
	}
	if j.ID == "" {
		j.ID = strings.TrimPrefix(newID("job"), "job-")
	}
	if j.Status == "" {
		j.Status = JobRunning
	}
	if err := checkJobStatus(j.Status); err != nil {
		return err
	}
	now := o.clock()
	j.CreatedAt, j.UpdatedAt = now, now
	return o.exec(ctx, "create job", `INSERT INTO jobs (`+jobColumns+`) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		j.ID, j.Name, j.Task, j.Mode, j.Status, j.StatusReason, j.BaseRef, j.BaseCommit, j.Branch, j.WorktreePath, j.TokenBudget,
		j.IterationLimit, j.Iterations, j.PromptTokens, j.CompletionTokens, j.Cost, stamp(now), stamp(now), nil)
}

// Job reads a job by id.
func (o ops) Job(ctx context.Context, id string) (Job, error) {
	return queryOne(ctx, o, scanJob, "job", id, `SELECT `+jobColumns+` FROM jobs WHERE id=?`, id)
}

// Jobs lists the jobs, most recently updated first.
func (o ops) Jobs(ctx context.Context) ([]Job, error) {
	return queryAll(ctx, o, scanJob, "jobs", `SELECT `+jobColumns+` FROM jobs ORDER BY updated_at DESC, id`)
}

// SetJobStatus changes a job's status; Done ends it.
func (o ops) SetJobStatus(ctx context.Context, id string, s JobStatus, reason string) error {
	if err := checkJobStatus(s); err != nil {
		return err
	}
	now := o.clock()
	var ended any
	if s == JobDone {
		ended = stamp(now)
	}
	return o.execOne(ctx, fmt.Sprintf("set job %s status", id), "job", id, `UPDATE jobs SET status=?, status_reason=?, updated_at=?, ended_at=? WHERE id=?`,
		s, reason, stamp(now), ended, id)
}

// SetJobBranch records the branch create_branch made or switched to.
func (o ops) SetJobBranch(ctx context.Context, id, branch string) error {
	return o.setJob(ctx, id, "branch", branch)
}

// SetJobWorktree records the job's worktree.
func (o ops) SetJobWorktree(ctx context.Context, id, path string) error {
	return o.setJob(ctx, id, "worktree_path", path)
}

func (o ops) setJob(ctx context.Context, id, column, value string) error {
	return o.execOne(ctx, fmt.Sprintf("set job %s %s", id, column), "job", id, `UPDATE jobs SET `+column+`=?, updated_at=? WHERE id=?`, value, stamp(o.clock()), id)
}

// SetJobLimits sets a job's token budget and iteration limit.
func (o ops) SetJobLimits(ctx context.Context, id string, tokens int64, iterations int) error {
	return o.execOne(ctx, fmt.Sprintf("set job %s limits", id), "job", id, `UPDATE jobs SET token_budget=?, iteration_limit=?, updated_at=? WHERE id=?`,
		tokens, iterations, stamp(o.clock()), id)
}

// AddJobUsage adds one model call's tokens and cost to a job.
func (o ops) AddJobUsage(ctx context.Context, id string, prompt, completion int64, cost float64) error {
	if prompt < 0 || completion < 0 || cost < 0 {
		return fmt.Errorf("job usage must not be negative (prompt %d, completion %d, cost %g)", prompt, completion, cost)
	}
	return o.execOne(ctx, fmt.Sprintf("add job %s usage", id), "job", id, `UPDATE jobs SET iterations=iterations+1, prompt_tokens=prompt_tokens+?,
		completion_tokens=completion_tokens+?, cost=cost+?, updated_at=? WHERE id=?`, prompt, completion, cost, stamp(o.clock()), id)
}

// JobMessage is one message of a job agent's conversation; Data is the
// message's structured part (tool calls, a result's call id).
type JobMessage struct {
	ID        int64
	JobID     string
	Role      string // user, assistant or tool
	Content   string
	Data      json.RawMessage
	CreatedAt time.Time
}

// AddJobMessage appends a message to a job's conversation.
func (o ops) AddJobMessage(ctx context.Context, m *JobMessage) error {
	switch m.Role {
	case "user", "assistant", "tool":
	default:
		return fmt.Errorf("invalid job message role %q: use user, assistant or tool", m.Role)
	}
	if len(m.Data) > 0 && !json.Valid(m.Data) {
		return fmt.Errorf("job message data is not valid JSON")
	}
	m.CreatedAt = o.clock()
	err := o.q.QueryRowContext(ctx, `INSERT INTO messages (run_id, role, content, data, created_at) VALUES (?,?,?,?,?) RETURNING id`,
		m.JobID, m.Role, m.Content, rawJSON(m.Data), stamp(m.CreatedAt)).Scan(&m.ID)
	if err != nil {
		return fmt.Errorf("add job message: %w", err)
	}
	return nil
}

// JobMessages is a job's conversation in order.
func (o ops) JobMessages(ctx context.Context, jobID string) ([]JobMessage, error) {
	return queryAll(ctx, o, func(row interface{ Scan(...any) error }) (JobMessage, error) {
		var m JobMessage
		var data sql.NullString
		err := row.Scan(&m.ID, &m.JobID, &m.Role, &m.Content, &data, stampTo(&m.CreatedAt))
		if data.Valid {
			m.Data = json.RawMessage(data.String)
		}
		return m, err
	}, "job messages", `SELECT id, run_id, role, content, data, created_at FROM messages WHERE run_id=? ORDER BY id`, jobID)
}

// JobToolCall is one tool call of a job's agent, recorded as it starts
// and as it ends.
type JobToolCall struct {
	JobID   string
	CallID  string
	Name    string
	Reason  string
	Summary string
	// Outcome is how the call ended ("" while it runs, or when its
	// process died first); Failed is set for failed and refused calls.
	Outcome   run.Outcome `json:",omitempty"`
	Failed    bool
	StartedAt time.Time
	EndedAt   time.Time // zero while running (or when the process died)
}

// StartJobToolCall records a tool call as it starts.
func (o ops) StartJobToolCall(ctx context.Context, c *JobToolCall) error {
	if strings.TrimSpace(c.Name) == "" {
		return fmt.Errorf("job tool call name is required")
	}
	c.StartedAt = o.clock()
	return o.exec(ctx, fmt.Sprintf("add job tool call %s", c.Name), `INSERT INTO tool_calls (run_id, call_id, name, reason, started_at) VALUES (?,?,?,?,?)`,
		c.JobID, c.CallID, c.Name, c.Reason, stamp(c.StartedAt))
}

// FinishJobToolCall records how the latest running call with that id
// ended: its result's summary and its outcome (ok, failed or refused).
func (o ops) FinishJobToolCall(ctx context.Context, jobID, callID, summary string, outcome run.Outcome) error {
	if err := checkOutcome(outcome); err != nil {
		return err
	}
	return o.execOne(ctx, fmt.Sprintf("finish job tool call %s", callID), "running job tool call", callID, `UPDATE tool_calls SET result_summary=?, outcome=?, failed=?, ended_at=? WHERE id=(
		SELECT id FROM tool_calls WHERE run_id=? AND call_id=? AND ended_at IS NULL ORDER BY id DESC LIMIT 1)`,
		summary, outcome, outcome.Failed(), stamp(o.clock()), jobID, callID)
}

// JobToolCalls lists a job's tool calls in order.
func (o ops) JobToolCalls(ctx context.Context, jobID string) ([]JobToolCall, error) {
	return queryAll(ctx, o, func(row interface{ Scan(...any) error }) (JobToolCall, error) {
		var c JobToolCall
		err := row.Scan(&c.JobID, &c.CallID, &c.Name, &c.Reason, &c.Summary, &c.Outcome, &c.Failed, stampTo(&c.StartedAt), stampTo(&c.EndedAt))
		return c, err
	}, "job tool calls", `SELECT run_id, call_id, name, reason, result_summary, outcome, failed, started_at, ended_at FROM tool_calls
		WHERE run_id=? ORDER BY id`, jobID)
}

// JobAnalysis is a record_analysis.
type JobAnalysis struct {
	ID         string
	JobID      string
	Findings   string
	Files      []string
	Complexity string
	Risks      []string
	CreatedAt  time.Time
}

// AddJobAnalysis stores an analysis; its ID is made.
func (o ops) AddJobAnalysis(ctx context.Context, a *JobAnalysis) error {
	if strings.TrimSpace(a.Findings) == "" {
		return fmt.Errorf("analysis findings are required")
	}
	files, err := toJSON(nonNil(a.Files))
	if err != nil {
		return err
	}
	risks, err := toJSON(nonNil(a.Risks))
	if err != nil {
		return err
	}
	a.ID, a.CreatedAt = newID("analysis"), o.clock()
	return o.exec(ctx, "add job analysis", `INSERT INTO job_analyses (id, job_id, findings, files, complexity, risks, created_at) VALUES (?,?,?,?,?,?,?)`,
		a.ID, a.JobID, a.Findings, files, a.Complexity, risks, stamp(a.CreatedAt))
}

// JobAnalyses lists a job's analyses in order.
func (o ops) JobAnalyses(ctx context.Context, jobID string) ([]JobAnalysis, error) {
	return queryAll(ctx, o, func(row interface{ Scan(...any) error }) (JobAnalysis, error) {
		var a JobAnalysis
		var files, risks string
		err := firstErr(row.Scan(&a.ID, &a.JobID, &a.Findings, &files, &a.Complexity, &risks, stampTo(&a.CreatedAt)), fromJSON(files, &a.Files), fromJSON(risks, &a.Risks))
		return a, err
	}, "job analyses", `SELECT id, job_id, findings, files, complexity, risks, created_at FROM job_analyses WHERE job_id=? ORDER BY created_at, rowid`, jobID)
}

// JobPlan is a create_plan; Steps is the plan's steps as JSON.
type JobPlan struct {
	ID              string
	JobID           string
	Steps           json.RawMessage
	EstimatedSteps  int
	EstimatedTokens int
	CreatedAt       time.Time
}

// AddJobPlan stores a plan; its ID is made.
func (o ops) AddJobPlan(ctx context.Context, p *JobPlan) error {
	if !json.Valid(p.Steps) {
		return fmt.Errorf("plan steps are not valid JSON")
	}
	p.ID, p.CreatedAt = newID("plan"), o.clock()
	return o.exec(ctx, "add job plan", `INSERT INTO job_plans (id, job_id, steps, estimated_steps, estimated_tokens, created_at) VALUES (?,?,?,?,?,?)`,
		p.ID, p.JobID, string(p.Steps), p.EstimatedSteps, p.EstimatedTokens, stamp(p.CreatedAt))
}

// JobPlans lists a job's plans in order.
func (o ops) JobPlans(ctx context.Context, jobID string) ([]JobPlan, error) {
	return queryAll(ctx, o, func(row interface{ Scan(...any) error }) (JobPlan, error) {
		var p JobPlan
		var steps string
		err := row.Scan(&p.ID, &p.JobID, &steps, &p.EstimatedSteps, &p.EstimatedTokens, stampTo(&p.CreatedAt))
		p.Steps = json.RawMessage(steps)
		return p, err
	}, "job plans", `SELECT id, job_id, steps, estimated_steps, estimated_tokens, created_at FROM job_plans WHERE job_id=? ORDER BY created_at, rowid`, jobID)
}

// Escalation statuses.
const (
	EscalationPending  = "Pending"
	EscalationAnswered = "Answered"
)

// JobEscalation is a request_human_review and its answer.
type JobEscalation struct {
	ID       string
	JobID    string
	Reason   string
	Severity string
	Context  json.RawMessage
	Status   string
	Approved bool
	Feedback string
	// Delivered: the agent has been given the answer.
	Delivered  bool
	CreatedAt  time.Time
	ResolvedAt time.Time
}

// AddJobEscalation records a Pending escalation; its ID is made.
func (o ops) AddJobEscalation(ctx context.Context, e *JobEscalation) error {
	if strings.TrimSpace(e.Reason) == "" {
		return fmt.Errorf("escalation reason is required")
	}
	if len(e.Context) > 0 && !json.Valid(e.Context) {
		return fmt.Errorf("escalation context is not valid JSON")
	}
	e.ID, e.Status, e.CreatedAt = newID("esc"), EscalationPending, o.clock()
	var context any
	if len(e.Context) > 0 {
		context = string(e.Context)
	}
	return o.exec(ctx, "add job escalation", `INSERT INTO questions (id, run_id, kind, topic, payload, status, created_at)
		VALUES (?,?,'escalation','escalation',json_object('reason',?,'severity',?,'context',?),?,?)`,
		e.ID, e.JobID, e.Reason, e.Severity, context, e.Status, stamp(e.CreatedAt))
}

// AnswerJobEscalation records the human's answer to a Pending escalation.
func (o ops) AnswerJobEscalation(ctx context.Context, id string, approved bool, feedback string) error {
	return o.execOne(ctx, fmt.Sprintf("answer escalation %s", id), "pending escalation", id, `UPDATE questions SET status=?, answer=json_object('approved',json(?),'feedback',?), resolved_at=?
		WHERE id=? AND kind='escalation' AND status=?`,
		EscalationAnswered, strconv.FormatBool(approved), feedback, stamp(o.clock()), id, EscalationPending)
}

// DeliverJobEscalation records that the agent has been given the answer.
func (o ops) DeliverJobEscalation(ctx context.Context, id string) error {
	return o.execOne(ctx, fmt.Sprintf("deliver escalation %s", id), "answered escalation", id, `UPDATE questions SET delivered=1 WHERE id=? AND kind='escalation' AND status=?`, id, EscalationAnswered)
}

// JobEscalations lists a job's escalations in order.
func (o ops) JobEscalations(ctx context.Context, jobID string) ([]JobEscalation, error) {
	return o.escalations(ctx, `AND run_id=?`, jobID)
}

// JobEscalation reads one escalation.
func (o ops) JobEscalation(ctx context.Context, id string) (JobEscalation, error) {
	list, err := o.escalations(ctx, `AND id=?`, id)
	return first(list, err, "escalation", id)
}

func (o ops) escalations(ctx context.Context, where string, arg string) ([]JobEscalation, error) {
	return queryAll(ctx, o, func(row interface{ Scan(...any) error }) (JobEscalation, error) {
		var e JobEscalation
		var context sql.NullString
		err := row.Scan(&e.ID, &e.JobID, &e.Reason, &e.Severity, &context, &e.Status, &e.Approved, &e.Feedback, &e.Delivered, stampTo(&e.CreatedAt), stampTo(&e.ResolvedAt))
		if context.Valid {
			e.Context = json.RawMessage(context.String)
		}
		return e, err
	}, "job escalations", `SELECT id, run_id, payload ->> '$.reason', payload ->> '$.severity', payload ->> '$.context', status,
		COALESCE(answer ->> '$.approved', 0), COALESCE(answer ->> '$.feedback', ''), delivered, created_at, resolved_at
		FROM questions WHERE kind='escalation' `+where+` ORDER BY created_at, rowid`, arg)
}

// JobCommit is a commit commit_changes made on the job's branch.
type JobCommit struct {
	JobID     string
	Hash      string
	Message   string
	Branch    string
	Files     int
	CreatedAt time.Time
}

// AddJobCommit records a commit.
func (o ops) AddJobCommit(ctx context.Context, c *JobCommit) error {
	if c.Hash == "" || c.Branch == "" {
		return fmt.Errorf("a job commit needs its hash and branch")
	}
	c.CreatedAt = o.clock()
	return o.exec(ctx, "add job commit", `INSERT INTO job_commits (job_id, hash, message, branch, files, created_at) VALUES (?,?,?,?,?,?)`,
		c.JobID, c.Hash, c.Message, c.Branch, c.Files, stamp(c.CreatedAt))
}

// JobCommits lists a job's commits in order.
func (o ops) JobCommits(ctx context.Context, jobID string) ([]JobCommit, error) {
	return queryAll(ctx, o, func(row interface{ Scan(...any) error }) (JobCommit, error) {
		var c JobCommit
		err := row.Scan(&c.JobID, &c.Hash, &c.Message, &c.Branch, &c.Files, stampTo(&c.CreatedAt))
		return c, err
	}, "job commits", `SELECT job_id, hash, message, branch, files, created_at FROM job_commits WHERE job_id=? ORDER BY id`, jobID)
}

// JobCheck is one run_tests (Kind "test") or run_lint ("lint") result.
type JobCheck struct {
	JobID     string
	Kind      string
	Status    string // pass, fail or error
	Passed    int    // tests passed (lint: 0)
	Failed    int    // tests failed, or lint errors
	Summary   string
	CreatedAt time.Time
}

// AddJobCheck records a test or lint result.
func (o ops) AddJobCheck(ctx context.Context, c *JobCheck) error {
	if c.Kind != "test" && c.Kind != "lint" {
		return fmt.Errorf("job check kind %q is not accepted: use test or lint", c.Kind)
	}
	c.CreatedAt = o.clock()
	return o.exec(ctx, "add job check", `INSERT INTO job_checks (job_id, kind, status, passed, failed, summary, created_at) VALUES (?,?,?,?,?,?,?)`,
		c.JobID, c.Kind, c.Status, c.Passed, c.Failed, c.Summary, stamp(c.CreatedAt))
}

// JobChecks lists a job's test and lint results in order.
func (o ops) JobChecks(ctx context.Context, jobID string) ([]JobCheck, error) {
	return queryAll(ctx, o, func(row interface{ Scan(...any) error }) (JobCheck, error) {
		var c JobCheck
		err := row.Scan(&c.JobID, &c.Kind, &c.Status, &c.Passed, &c.Failed, &c.Summary, stampTo(&c.CreatedAt))
		return c, err
	}, "job checks", `SELECT job_id, kind, status, passed, failed, summary, created_at FROM job_checks WHERE job_id=? ORDER BY id`, jobID)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
