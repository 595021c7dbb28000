package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	kernel "github.com/autarch-dev/autarch/agent/run"
	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/tools/verify"
	"github.com/autarch-dev/autarch/workspace"
)

func statusVerb() verb {
	return verb{
		name:    "status",
		usage:   "autarch status [--root DIR] [--json] [--jobs] [--calls N]",
		summary: "list the project's workflows (stage, status, pulses, cost), jobs (branch, commits, tests, lint, escalations, tokens, cost), swarms (round, proposals, commits, tokens) and the latest tool calls of each workflow and job",
		run:     runStatus,
	}
}

func runStatus(ctx context.Context, io stdio, args []string) int {
	fs := newFlagSet("status", io)
	f := addRootFlag(fs)
	asJSON := fs.Bool("json", false, "print JSON")
	onlyJobs := fs.Bool("jobs", false, "list the jobs only (with --json: the jobs' JSON)")
	calls := fs.Int("calls", defaultStatusCalls, "show each workflow's and job's latest N tool calls (0: none)")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if *calls < 0 {
		fmt.Fprintf(io.err, "autarch status: --calls %d is negative: pass the number of latest tool calls to show (default %d), or 0 for none\n",
			*calls, defaultStatusCalls)
		return 2
	}
	w, err := openWorkflows(ctx, io, f, false)
	if err != nil {
		return fail(io, "status", 1, err)
	}
	defer w.close()
	act := newActivityLister(*calls, time.Now()).withEgress(w.project.Egress)
	if !*asJSON {
		io.out = editor.Shown(io.out) // names, statuses and tool activity: the agents' words
	}
	if *onlyJobs {
		return printJobsWithActivity(ctx, io, w, *asJSON, act)
	}
	rows, err := w.engine.Summaries(ctx)
	if err != nil {
		return fail(io, "status", 1, err)
	}
	if *asJSON {
		out, err := withPulses(ctx, w.engine.Store(), rows, act)
		return printStatusJSON(io, out, err)
	}
	if len(rows) == 0 {
		fmt.Fprintln(io.out, "no workflows (start one with: autarch run TASK)")
	} else {
		tw := newTable(io.out, "NAME\tSTAGE\tSTATUS\tPULSES\tCOST\tUPDATED\tID")
		for _, r := range rows {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d/%d\t$%.4f\t%s\t%s\n", r.Name, r.Stage, r.Status, r.PulsesDone, r.Pulses, r.Cost, r.UpdatedAt, r.ID)
		}
		tw.Flush()
		if err := printWorkflowCalls(ctx, io, w.engine.Store(), rows, act); err != nil {
			return fail(io, "status", 1, err)
		}
	}
	fmt.Fprintln(io.out)
	if code := printJobsWithActivity(ctx, io, w, false, act); code != 0 {
		return code
	}
	return printSwarms(io, w.engine.Config().Repo.StateDir(), false, true)
}

// statusRow is a workflow of status --json with its pulses, each with its
// completion record: rejections, unresolved failures, the last gate run.
type statusRow struct {
	editor.WorkflowSummary
	PulseRecords []statusPulse `json:"pulseRecords"`
	// ToolActivity is the workflow's latest tool calls (nil with --calls 0).
	ToolActivity *toolActivity `json:"toolActivity,omitempty"`
}

type statusPulse struct {
	ID               string                  `json:"id"`
	Title            string                  `json:"title"`
	Status           store.PulseStatus       `json:"status"`
	Rejections       int                     `json:"rejections"`
	Failures         []store.PulseFailure    `json:"failures,omitempty"`
	UnresolvedIssues []store.UnresolvedIssue `json:"unresolvedIssues,omitempty"`
	GateSummary      string                  `json:"gateSummary,omitempty"`
	Gates            *verify.GateRun         `json:"gates,omitempty"`
	// Reverted: the pulse was done and reverted (autarch revert); it is
	// pending (Proposed) until it runs again, with Guidance (autarch redo).
	Reverted bool   `json:"reverted,omitempty"`
	Guidance string `json:"guidance,omitempty"`
}

func withPulses(ctx context.Context, st *store.Store, rows []editor.WorkflowSummary, act activityLister) ([]statusRow, error) {
	out := make([]statusRow, 0, len(rows))
	for _, r := range rows {
		pulses, err := st.WorkflowPulses(ctx, r.ID)
		if err != nil {
			return nil, err
		}
		row := statusRow{WorkflowSummary: r, PulseRecords: []statusPulse{}}
		if row.ToolActivity, err = act.workflow(ctx, st, r, pulses); err != nil {
			return nil, err
		}
		for _, p := range pulses {
			sp := statusPulse{ID: p.PlannedID, Title: p.Title, Status: p.Status, Rejections: p.RejectionCount, Failures: p.Failures,
				UnresolvedIssues: p.UnresolvedIssues, Gates: p.Gates, Reverted: p.RevertedBy != "" && p.Status == store.PulseProposed, Guidance: p.Guidance}
			if p.Gates != nil {
				sp.GateSummary = p.Gates.Summary()
			}
			row.PulseRecords = append(row.PulseRecords, sp)
		}
		out = append(out, row)
	}
	return out, nil
}

// defaultStatusCalls is how many of a workflow's or job's latest tool calls
// status shows unless --calls says otherwise.
const defaultStatusCalls = 20

// toolActivity is the recent tool-call activity of a workflow or a job:
// its latest calls, oldest first, and how many calls each tool had in all.
type toolActivity struct {
	Total  int            `json:"total"`
	Counts map[string]int `json:"counts"`
	Calls  []callView     `json:"calls"`
}

// callView is one tool call as status shows it. Status is ok, error,
// refused (a guardrail, hook, the secret gate or the user said no),
// running, or interrupted (never finished: its process ended).
type callView struct {
	ID     string `json:"id"`
	Tool   string `json:"tool"`
	Args   string `json:"args"`
	Reason string `json:"reason,omitempty"`
	Status string `json:"status"`
	Stage  string `json:"stage,omitempty"`
	// PulseID is the pulse's planned id.
	PulseID   string `json:"pulseId,omitempty"`
	StartedAt string `json:"startedAt"`
	// DurationMs is how long the call took, or has been running; absent
	// for an interrupted call.
	DurationMs *int64 `json:"durationMs,omitempty"`
	// ParentCallID and Subagent are set on a sub-agent's call: the
	// dispatch_subagent call that ran it and the sub-agent's type.
	ParentCallID string `json:"parentCallId,omitempty"`
	Subagent     string `json:"subagent,omitempty"`

	dur, ago time.Duration // for the one-line form
}

// callRecord is a stored call of a workflow or a job.
type callRecord struct {
	id, tool, reason, summary string
	args                      json.RawMessage
	outcome                   kernel.Outcome
	started, ended            time.Time
	stage, pulse              string
	parentCallID, subagent    string
}

// activityLister reads the latest n tool calls of workflows and jobs
// (none when n is 0) and shows them as of now, secrets blocked.
type activityLister struct {
	n      int
	now    time.Time
	redact redactor
}

func newActivityLister(n int, now time.Time) activityLister {
	return activityLister{n: n, now: now, redact: redactor{egress: tools.NewEgress(context.Background(), nil, tools.EgressSources{})}}
}

// withEgress shows the calls through the repository's egress gate (its
// secret values too, not only the line rules); nil keeps the gate's rules.
func (a activityLister) withEgress(e *tools.Egress) activityLister {
	if e != nil {
		a.redact.egress = e
	}
	return a
}

// workflow is a workflow's tool activity (nil when no calls are asked
// for); pulses name the pulses by their planned ids.
func (a activityLister) workflow(ctx context.Context, st *store.Store, r editor.WorkflowSummary, pulses []store.Pulse) (*toolActivity, error) {
	if a.n == 0 {
		return nil, nil
	}
	calls, err := st.RecentToolCalls(ctx, r.ID, a.n)
	if err != nil {
		return nil, err
	}
	counts, err := st.ToolCallCounts(ctx, r.ID)
	if err != nil {
		return nil, err
	}
	planned := map[string]string{}
	for _, p := range pulses {
		planned[p.ID] = p.PlannedID
	}
	recs := make([]callRecord, 0, len(calls))
	for _, c := range calls {
		recs = append(recs, workflowCall(c, planned[c.PulseID]))
	}
	return a.activity(recs, counts, workflowLive(r.Status)), nil
}

// job is a job's tool activity (nil when no calls are asked for).
func (a activityLister) job(ctx context.Context, st *store.Store, id, status string) (*toolActivity, error) {
	if a.n == 0 {
		return nil, nil
	}
	calls, err := st.RecentJobToolCalls(ctx, id, a.n)
	if err != nil {
		return nil, err
	}
	counts, err := st.JobToolCallCounts(ctx, id)
	if err != nil {
		return nil, err
	}
	recs := make([]callRecord, 0, len(calls))
	for _, c := range calls {
		recs = append(recs, jobCall(c))
	}
	return a.activity(recs, counts, jobLive(status)), nil
}

func workflowCall(c store.ToolCall, pulse string) callRecord {
	return callRecord{id: c.CallID, tool: c.Name, reason: c.Reason, summary: c.ResultSummary, args: c.Args, outcome: c.Outcome,
		started: c.StartedAt, ended: c.EndedAt, stage: c.Stage, pulse: pulse, parentCallID: c.ParentCallID, subagent: c.Subagent}
}

func jobCall(c store.JobCall) callRecord {
	return callRecord{id: c.CallID, tool: c.Name, reason: c.Reason, summary: c.Summary, args: c.Args, outcome: c.Outcome,
		started: c.StartedAt, ended: c.EndedAt}
}

// workflowLive: a workflow in this status has a process working on it
// (status recovered the others), so its unfinished call is running.
func workflowLive(status string) bool {
	return status == string(store.WorkflowActive) || status == string(store.WorkflowAwaitingUser)
}

func jobLive(status string) bool {
	return status == string(store.JobRunning) || status == string(store.JobWaiting)
}

func (a activityLister) activity(recs []callRecord, counts map[string]int, live bool) *toolActivity {
	out := &toolActivity{Counts: counts, Calls: make([]callView, 0, len(recs))}
	for _, n := range counts {
		out.Total += n
	}
	for _, c := range recs {
		out.Calls = append(out.Calls, a.view(c, live))
	}
	return out
}

func (a activityLister) view(c callRecord, live bool) callView {
	v := callView{ID: c.id, Tool: c.tool, Args: a.redact.args(c.args), Reason: clipRunes(a.redact.text(c.reason), maxShownArgs),
		Status: callStatus(c, live), Stage: c.stage, PulseID: c.pulse, StartedAt: c.started.UTC().Format(time.RFC3339),
		ParentCallID: c.parentCallID, Subagent: c.subagent}
	switch {
	case !c.ended.IsZero():
		v.dur, v.ago = c.ended.Sub(c.started), a.now.Sub(c.ended)
	case v.Status == "running":
		v.dur = max(a.now.Sub(c.started), 0)
	default:
		return v
	}
	ms := v.dur.Milliseconds()
	v.DurationMs = &ms
	return v
}

// callStatus is how a call shows: its recorded outcome (the store keeps
// the run kernel's ok, failed or refused as the call ends), or running or
// interrupted for a call that has not ended.
func callStatus(c callRecord, live bool) string {
	switch {
	case c.ended.IsZero() && live:
		return "running"
	case c.ended.IsZero():
		return "interrupted"
	case c.outcome == kernel.OutcomeRefused:
		return "refused"
	case c.outcome.Failed():
		return "error"
	}
	return "ok"
}

// line is the call in a few words: "running shell `go test ./...` for 12s".
func (v callView) line() string {
	what := v.Tool
	if v.Args != "" {
		what += " `" + v.Args + "`"
	}
	var s string
	switch v.Status {
	case "running":
		s = fmt.Sprintf("running %s for %s", what, shortDuration(v.dur))
	case "interrupted":
		s = fmt.Sprintf("interrupted in %s", what)
	default:
		s = fmt.Sprintf("last call %s: %s in %s, %s ago", what, v.Status, shortDuration(v.dur), shortDuration(v.ago))
	}
	if v.Subagent != "" {
		s += fmt.Sprintf(" (%s sub-agent of call %s)", v.Subagent, v.ParentCallID)
	}
	return s
}

func shortDuration(d time.Duration) string {
	if d < time.Second {
		return d.Round(time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// printWorkflowCalls prints a line per running workflow with its latest
// tool call.
func printWorkflowCalls(ctx context.Context, io stdio, st *store.Store, rows []editor.WorkflowSummary, act activityLister) error {
	if act.n == 0 {
		return nil
	}
	last := act
	last.n = 1
	for _, r := range rows {
		if !workflowLive(r.Status) {
			continue
		}
		pulses, err := st.WorkflowPulses(ctx, r.ID)
		if err != nil {
			return err
		}
		a, err := last.workflow(ctx, st, r, pulses)
		if err != nil {
			return err
		}
		fmt.Fprintln(io.out, activityLine(r.Name, a))
	}
	return nil
}

func activityLine(name string, a *toolActivity) string {
	if len(a.Calls) == 0 {
		return name + ": no tool calls yet"
	}
	return name + ": " + a.Calls[len(a.Calls)-1].line()
}

// statusJob is a job of status --jobs --json with its tool activity.
type statusJob struct {
	editor.JobSummary
	// Activity hides the panel's list of the job's calls (always nil):
	// ToolActivity is status's one account of them, redacted and bounded
	// by --calls.
	Activity []editor.ActivityView `json:"activity,omitempty"`
	// ToolActivity is the job's latest tool calls (nil with --calls 0).
	ToolActivity *toolActivity `json:"toolActivity,omitempty"`
}

// printJobsWithActivity prints the jobs (printJobs) with their tool
// activity: in the JSON, or as a line per running job.
func printJobsWithActivity(ctx context.Context, io stdio, w *workflows, asJSON bool, act activityLister) int {
	if act.n == 0 {
		return printJobs(ctx, io, w, asJSON)
	}
	if asJSON {
		out, err := jobsWithActivity(ctx, io, w, act)
		return printStatusJSON(io, out, err)
	}
	if code := printJobs(ctx, io, w, false); code != 0 {
		return code
	}
	if err := printJobCalls(ctx, io, w.engine.Store(), act); err != nil {
		return fail(io, "status", 1, err)
	}
	return 0
}

// printStatusJSON prints v as indented JSON, or err.
func printStatusJSON(io stdio, v any, err error) int {
	if err != nil {
		return fail(io, "status", 1, err)
	}
	return printJSON(io, v)
}

// jobsWithActivity is the jobs' summaries with their tool activity.
func jobsWithActivity(ctx context.Context, io stdio, w *workflows, act activityLister) ([]statusJob, error) {
	jobs, err := newJobs(io, w)
	if err != nil {
		return nil, err
	}
	list, err := jobs.Summaries(ctx)
	if err != nil {
		return nil, err
	}
	st := w.engine.Store()
	out := make([]statusJob, 0, len(list))
	for _, j := range list {
		a, err := act.job(ctx, st, j.ID, j.Status)
		if err != nil {
			return nil, err
		}
		out = append(out, statusJob{JobSummary: j, ToolActivity: a})
	}
	return out, nil
}

// printJobCalls prints a line per running job with its latest tool call.
func printJobCalls(ctx context.Context, io stdio, st *store.Store, act activityLister) error {
	jobs, err := st.Jobs(ctx)
	if err != nil {
		return err
	}
	last := act
	last.n = 1
	for _, j := range jobs {
		if !jobLive(string(j.Status)) {
			continue
		}
		a, err := last.job(ctx, st, j.ID, string(j.Status))
		if err != nil {
			return err
		}
		fmt.Fprintln(io.out, activityLine("job "+j.Name, a))
	}
	return nil
}

// maxShownArgs bounds a call's shown arguments and reason, in runes.
const maxShownArgs = 120

// primaryArgs are the arguments that say what a call acts on: the first a
// call has is shown first and bare ("go test ./...", "a.go").
var primaryArgs = []string{"command", "path", "file_path", "pattern", "query", "url", "task"}

// secretArgNames are argument names whose values are never shown,
// whatever they look like.
var secretArgNames = []string{"password", "passwd", "secret", "token", "apikey", "api_key", "api-key", "authorization", "credential",
	"private_key", "access_key", "cookie"}

// redactor blocks secrets in what status shows of a call: every value
// shown passes the egress gate (tools.Egress: the secret gate's line
// rules and the repository's known secret values, as every tool result
// and stored call does; records stored before it are filtered here), and
// any argument named like a credential is blocked outright.
type redactor struct {
	egress *tools.Egress
}

func (r redactor) text(s string) string { return r.egress.Text(s) }

// args summarises a call's arguments on one line: the primary one bare,
// then the others as name=value sorted by name, quoted when they hold
// spaces ("reason" is shown apart); text of several lines shows as its
// line count, nested values as their length.
func (r redactor) args(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return clipRunes(r.text(string(raw)), maxShownArgs)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return clipRunes(r.value("", v), maxShownArgs)
	}
	var parts []string
	for _, k := range primaryArgs {
		if x, ok := obj[k]; ok {
			parts = append(parts, r.value(k, x))
			delete(obj, k)
			break
		}
	}
	delete(obj, "reason")
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		v := r.value(k, obj[k])
		if x, ok := obj[k].(string); ok && v == x && strings.ContainsAny(v, " \t\"") {
			v = strconv.Quote(v)
		}
		parts = append(parts, k+"="+v)
	}
	return clipRunes(strings.Join(parts, " "), maxShownArgs)
}

// value is one argument's value as shown.
func (r redactor) value(name string, v any) string {
	switch x := v.(type) {
	case string:
		if r.secret(name, x) {
			return workspace.Blocked
		}
		if n := strings.Count(x, "\n"); n > 0 {
			return fmt.Sprintf("(%d lines)", n+1)
		}
		return x
	case []any:
		return fmt.Sprintf("[%d items]", len(x))
	case map[string]any:
		return fmt.Sprintf("{%d keys}", len(x))
	case nil:
		return "null"
	}
	if r.secret(name, "") {
		return workspace.Blocked
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// secret reports whether an argument's value must not be shown: its name
// says credential, or the gate finds a secret in it alone or as an
// assignment to its name.
func (r redactor) secret(name, value string) bool {
	lower := strings.ToLower(name)
	for _, w := range secretArgNames {
		if strings.Contains(lower, w) {
			return true
		}
	}
	if value == "" {
		return false
	}
	for _, s := range []string{value, name + ": " + value, fmt.Sprintf("%q: %q", name, value)} {
		if r.egress.Text(s) != s {
			return true
		}
	}
	return false
}

// clipRunes cuts s to n runes, on one line.
func clipRunes(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}
