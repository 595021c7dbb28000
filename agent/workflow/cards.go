package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/tools/terminal"
)

// card is a submitted card (scope, research, plan) for the user to judge.
type card struct {
	kind     store.CardKind
	id       string
	approval editor.Approval
}

// cardStage is a stage whose agent submits a card the user approves or
// sends back with feedback: Scoping, Research and Plan.
type cardStage struct {
	kind   store.CardKind
	submit string // the terminal tool that submits the card
	input  string // the agent's first input
	pinned string
	// pending finds a card left waiting by an earlier run (nil: none).
	pending func(ctx context.Context) (*card, error)
	// save stores a submitted card; problem is told to the agent when the
	// card cannot be accepted.
	save func(ctx context.Context, args json.RawMessage) (c *card, problem string, err error)
	// approved runs after the user approved, before the stage advances.
	approved func(ctx context.Context, c *card) error
}

// runCards runs a card stage to the approval of its card.
func (e *Engine) runCards(ctx context.Context, wf store.Workflow, cs cardStage) error {
	input := cs.input
	if cs.pending != nil {
		c, err := cs.pending(ctx)
		if err != nil {
			return err
		}
		if c != nil {
			next, done, err := e.decide(ctx, wf, cs, c)
			if err != nil || done {
				return e.stageErr(ctx, wf, err)
			}
			input += "\n\n" + next
		}
	}
	if answers, err := e.earlierAnswers(ctx, wf); err != nil {
		return err
	} else if answers != "" {
		input += "\n\n" + answers
	}
	conv, err := e.open(ctx, wf, Stage(wf.Stage), "", talkOptions{Root: e.cfg.Repo.Top(), Pinned: cs.pinned})
	if err != nil {
		return err
	}
	defer conv.close()
	err = conv.talk(ctx, input, func(ctx context.Context, out agent.Outcome) (string, bool, error) {
		if out.Tool != cs.submit {
			return fmt.Sprintf("%s is not how this stage ends: call %s.", out.Tool, cs.submit), false, nil
		}
		c, problem, err := cs.save(ctx, out.Args)
		if err != nil || problem != "" {
			return problem, false, err
		}
		return e.decide(ctx, wf, cs, c)
	})
	return e.stageErr(ctx, wf, err)
}

// decide asks the user to approve a card. Approved: the stage advances.
// Rejected: the feedback is the agent's next input.
func (e *Engine) decide(ctx context.Context, wf store.Workflow, cs cardStage, c *card) (string, bool, error) {
	e.emit(Event{Kind: "card", WorkflowID: wf.ID, Stage: wf.Stage, Status: string(c.kind) + " submitted", Card: &editor.CardEvent{Kind: editor.CardKind(c.kind), Status: editor.CardSubmitted}, Text: c.approval.Title})
	v, err := e.approve(ctx, wf, c.approval)
	if err != nil {
		return "", false, err
	}
	return e.applyVerdict(ctx, wf, cs, c, v)
}

// applyVerdict records the user's verdict on a card: approved, the stage
// advances; rejected, the feedback is the agent's next input.
func (e *Engine) applyVerdict(ctx context.Context, wf store.Workflow, cs cardStage, c *card, v editor.Verdict) (string, bool, error) {
	var err error
	if v.Decision == editor.DecisionReject {
		if err := e.cfg.Store.ResolveCard(ctx, c.kind, c.id, store.CardRejected, v.Feedback); err != nil {
			return "", false, err
		}
		e.emit(Event{Kind: "card", WorkflowID: wf.ID, Stage: wf.Stage, Status: string(c.kind) + " rejected", Card: &editor.CardEvent{Kind: editor.CardKind(c.kind), Status: editor.CardRejected}, Text: v.Feedback})
		return fmt.Sprintf("The user requested changes to your %s%s Revise it and call %s again.", c.kind, feedbackText(v.Feedback), cs.submit), false, nil
	}
	if err := e.cfg.Store.ResolveCard(ctx, c.kind, c.id, store.CardApproved, ""); err != nil {
		return "", false, err
	}
	if cs.approved != nil {
		if err := cs.approved(ctx, c); err != nil {
			return "", false, err
		}
	}
	status := string(c.kind) + " approved"
	if c.kind == store.KindPlan {
		status = "PlanCardResolved"
	}
	e.emit(Event{Kind: "card", WorkflowID: wf.ID, Stage: wf.Stage, Status: status, Card: &editor.CardEvent{Kind: editor.CardKind(c.kind), Status: editor.CardApproved}})
	wf, err = e.cfg.Store.Workflow(ctx, wf.ID)
	if err != nil {
		return "", false, err
	}
	return "", true, e.next(ctx, wf)
}

// earlierAnswers are the answers to questions and the change requests of
// this stage from an earlier run, so a resumed agent knows them.
func (e *Engine) earlierAnswers(ctx context.Context, wf store.Workflow) (string, error) {
	msgs, err := e.cfg.Store.Messages(ctx, wf.ID, wf.Stage, "")
	if err != nil {
		return "", err
	}
	var parts []string
	for _, m := range msgs {
		if m.Role == agent.RoleUser && (strings.HasPrefix(m.Content, "The user answered your questions:") || strings.HasPrefix(m.Content, "The user requested changes")) {
			parts = append(parts, m.Content)
		}
	}
	return strings.Join(parts, "\n"), nil
}

// cards runs the card stage a workflow is in (Scoping, Research, Plan) to
// the approval of its card.
func (e *Engine) cards(ctx context.Context, wf store.Workflow) error {
	cs, err := e.cardStageFor(ctx, wf)
	if err != nil {
		return err
	}
	if cs.kind == store.KindResearch {
		if err := e.fanOut(ctx, wf, &cs); err != nil {
			return err
		}
	}
	return e.runCards(ctx, wf, cs)
}

// cardStageFor is the card stage a workflow is in; the stages after
// Scoping keep what was approved before pinned.
func (e *Engine) cardStageFor(ctx context.Context, wf store.Workflow) (cardStage, error) {
	var cs cardStage
	switch Stage(wf.Stage) {
	case StageScoping:
		return e.scopeStage(wf), nil
	case StageResearch:
		cs = e.researchStage(wf)
	case StagePlan:
		cs = e.planStage(wf)
	default:
		return cardStage{}, fmt.Errorf("workflow %s is in %s, where no card waits for approval", wf.Name, wf.Stage)
	}
	pinned, err := e.pinned(ctx, wf)
	if err != nil {
		return cardStage{}, err
	}
	cs.pinned = pinned
	return cs, nil
}

// DecidePending decides a card (scope, research, plan) left waiting for
// approval — its prompt was dismissed, or the process that asked died —
// from the side panel or any client (autarch.answer with a verdict).
// Approved, the workflow moves to the next stage; rejected, the feedback
// reaches the agent when the workflow resumes.
func (e *Engine) DecidePending(ctx context.Context, workflowID, pendingID string, v editor.Verdict) error {
	wf, p, err := e.openPending(ctx, workflowID, pendingID, "approval")
	if err != nil {
		return err
	}
	if v.Decision != editor.DecisionApprove && v.Decision != editor.DecisionReject {
		return fmt.Errorf("decision %q is not accepted: use approve or reject", v.Decision)
	}
	cs, err := e.cardStageFor(ctx, wf)
	if err != nil {
		return err
	}
	if string(cs.kind) != p.Kind {
		return fmt.Errorf("%s asks about a %s; resume the workflow to be asked again", pendingID, p.Kind)
	}
	c, err := cs.pending(ctx)
	if err != nil {
		return err
	}
	if c == nil {
		return fmt.Errorf("no %s card of workflow %s waits for approval", cs.kind, wf.Name)
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if err := e.cfg.Store.AnswerPending(ctx, pendingID, raw); err != nil {
		return err
	}
	next, _, err := e.applyVerdict(ctx, wf, cs, c, v)
	if err != nil || next == "" {
		return err
	}
	// The revision request waits in the stage's conversation for the resumed agent.
	return e.cfg.Store.AddMessage(ctx, &store.Message{WorkflowID: wf.ID, Stage: wf.Stage, Role: agent.RoleUser, Content: next})
}

// stageErr ends a stage whose agent could not finish: the workflow halts
// for the user, who can resume it.
func (e *Engine) stageErr(ctx context.Context, wf store.Workflow, err error) error {
	var f *stageFailure
	if !errors.As(err, &f) {
		return err
	}
	if err := e.finish(ctx, wf, store.WorkflowHalted, f.reason); err != nil {
		return err
	}
	return &Halt{Stage: Stage(wf.Stage), Reason: f.reason}
}

func (e *Engine) scopeStage(wf store.Workflow) cardStage {
	return cardStage{
		kind: store.KindScope, submit: terminal.SubmitScope,
		input: "Scope this task:\n" + wf.Task,
		pending: func(ctx context.Context) (*card, error) {
			cards, err := e.cfg.Store.ScopeCards(ctx, wf.ID)
			if err != nil || len(cards) == 0 || cards[len(cards)-1].Status != store.CardPending {
				return nil, err
			}
			return scopeCard(cards[len(cards)-1]), nil
		},
		save: func(ctx context.Context, args json.RawMessage) (*card, string, error) {
			var p terminal.ScopeCard
			if err := json.Unmarshal(args, &p); err != nil {
				return nil, "", fmt.Errorf("submit_scope arguments: %w", err)
			}
			sc := store.ScopeCard{WorkflowID: wf.ID, Title: p.Title, Description: p.Description, InScope: p.InScope, OutOfScope: p.OutOfScope,
				Constraints: p.Constraints, RecommendedPath: p.RecommendedPath, Rationale: p.Rationale}
			if err := e.cfg.Store.AddScopeCard(ctx, &sc); err != nil {
				return nil, "", err
			}
			return scopeCard(sc), "", nil
		},
		approved: func(ctx context.Context, c *card) error {
			cur, err := e.cfg.Store.Workflow(ctx, wf.ID)
			if err != nil || cur.Path != "" {
				return err // a path the user chose wins over the recommendation
			}
			sc, err := e.cfg.Store.ApprovedScopeCard(ctx, wf.ID)
			if err != nil {
				return err
			}
			cur.Path = string(PathFull)
			if sc.RecommendedPath == string(PathQuick) {
				cur.Path = string(PathQuick)
			}
			return e.cfg.Store.UpdateWorkflow(ctx, &cur)
		},
	}
}

func scopeCard(sc store.ScopeCard) *card {
	return &card{kind: store.KindScope, id: sc.ID, approval: editor.Approval{Kind: string(store.KindScope), Title: "Approve the scope: " + sc.Title,
		Detail: scopeMarkdown(sc), Reason: sc.Rationale}}
}

func scopeMarkdown(sc store.ScopeCard) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## %s\n\n%s\n", sc.Title, sc.Description)
	section(&b, "In scope", sc.InScope)
	section(&b, "Out of scope", sc.OutOfScope)
	section(&b, "Constraints", sc.Constraints)
	fmt.Fprintf(&b, "\nRecommended path: **%s**", sc.RecommendedPath)
	if sc.Rationale != "" {
		b.WriteString(" — " + sc.Rationale)
	}
	b.WriteString("\n")
	return b.String()
}

func section(b *strings.Builder, title string, items []string) {
	if len(items) == 0 {
		return
	}
	fmt.Fprintf(b, "\n**%s**\n", title)
	for _, it := range items {
		fmt.Fprintf(b, "- %s\n", it)
	}
}

// fanOut gives the research agent what the explorer sub-agents found
// (ResearchFanOut), or tells it they could not.
func (e *Engine) fanOut(ctx context.Context, wf store.Workflow, cs *cardStage) error {
	if e.cfg.ResearchFanOut == nil {
		return nil
	}
	findings, err := e.cfg.ResearchFanOut(ctx, wf.ID, cs.pinned)
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case err != nil:
		e.cfg.Log.Warn("research fan-out failed", "workflow", wf.ID, "err", err)
		cs.input += "\n\n(The explorer sub-agents could not research: " + err.Error() + ". Research alone.)"
	default:
		cs.input += "\n\n" + findings + "\nVerify what matters of these findings in the code and consolidate them into submit_research."
	}
	return nil
}

func (e *Engine) researchStage(wf store.Workflow) cardStage {
	return cardStage{
		kind: store.KindResearch, submit: terminal.SubmitResearch,
		input: "Research the codebase for the approved scope (above), then call submit_research.",
		pending: func(ctx context.Context) (*card, error) {
			rs, err := e.cfg.Store.ResearchCards(ctx, wf.ID)
			if err != nil || len(rs) == 0 || rs[len(rs)-1].Status != store.CardPending {
				return nil, err
			}
			return researchCard(rs[len(rs)-1]), nil
		},
		save: func(ctx context.Context, args json.RawMessage) (*card, string, error) {
			var r store.Research
			if err := json.Unmarshal(args, &r); err != nil {
				return nil, "", fmt.Errorf("submit_research arguments: %w", err)
			}
			r.ID, r.WorkflowID = "", wf.ID
			if err := e.cfg.Store.AddResearch(ctx, &r); err != nil {
				return nil, "", err
			}
			return researchCard(r), "", nil
		},
	}
}

func researchCard(r store.Research) *card {
	var b strings.Builder
	fmt.Fprintf(&b, "## Research findings\n\n%s\n", r.Summary)
	var files []string
	for _, f := range r.KeyFiles {
		files = append(files, fmt.Sprintf("`%s` %s — %s", f.Path, f.LineRanges, f.Purpose))
	}
	section(&b, "Key files", files)
	section(&b, "Recommendations", r.Recommendations)
	var risks []string
	for _, c := range r.Challenges {
		risks = append(risks, c.Issue+" — "+c.Mitigation)
	}
	section(&b, "Challenges", risks)
	return &card{kind: store.KindResearch, id: r.ID, approval: editor.Approval{Kind: string(store.KindResearch), Title: "Approve the research findings", Detail: b.String()}}
}

func (e *Engine) planStage(wf store.Workflow) cardStage {
	return cardStage{
		kind: store.KindPlan, submit: terminal.SubmitPlan,
		input: "Plan the implementation of the approved scope (above) as pulses, then call submit_plan.",
		pending: func(ctx context.Context) (*card, error) {
			p, err := e.cfg.Store.LatestPlan(ctx, wf.ID)
			if errors.Is(err, store.ErrNotFound) || err == nil && p.Status != store.CardPending {
				return nil, nil
			}
			if err != nil {
				return nil, err
			}
			return planCard(p), nil
		},
		save: func(ctx context.Context, args json.RawMessage) (*card, string, error) {
			var p terminal.Plan
			if err := json.Unmarshal(args, &p); err != nil {
				return nil, "", fmt.Errorf("submit_plan arguments: %w", err)
			}
			planned := make([]PlannedPulse, len(p.Pulses))
			pl := store.Plan{WorkflowID: wf.ID, ApproachSummary: p.ApproachSummary}
			for i, pp := range p.Pulses {
				planned[i] = PlannedPulse(pp)
				pl.Pulses = append(pl.Pulses, store.Pulse{PlannedID: pp.ID, Seq: i, Title: pp.Title, Description: pp.Description,
					ExpectedChanges: pp.ExpectedChanges, DependsOn: pp.DependsOn, EstimatedSize: pp.EstimatedSize})
			}
			if _, err := Order(planned); err != nil {
				return nil, fmt.Sprintf("The plan cannot run: %v. Fix the pulses and call submit_plan again.", err), nil
			}
			if err := e.cfg.Store.AddPlan(ctx, &pl); err != nil {
				return nil, "", err
			}
			return planCard(pl), "", nil
		},
	}
}

func planCard(p store.Plan) *card {
	var b strings.Builder
	fmt.Fprintf(&b, "## Plan\n\n%s\n\n", p.ApproachSummary)
	for i, pp := range p.Pulses {
		fmt.Fprintf(&b, "%d. **%s** `%s` (%s)", i+1, pp.Title, pp.PlannedID, pp.EstimatedSize)
		if len(pp.DependsOn) > 0 {
			fmt.Fprintf(&b, " after %s", strings.Join(pp.DependsOn, ", "))
		}
		fmt.Fprintf(&b, "\n   %s\n", pp.Description)
		if len(pp.ExpectedChanges) > 0 {
			fmt.Fprintf(&b, "   files: %s\n", strings.Join(pp.ExpectedChanges, ", "))
		}
	}
	return &card{kind: store.KindPlan, id: p.ID, approval: editor.Approval{Kind: string(store.KindPlan), Title: fmt.Sprintf("Approve the plan (%s)", plural(len(p.Pulses), "pulse")), Detail: b.String()}}
}

// pinned is what every agent after Scoping keeps in view: the approved
// scope card, research findings and plan.
func (e *Engine) pinned(ctx context.Context, wf store.Workflow) (string, error) {
	var b strings.Builder
	b.WriteString("Task: " + wf.Task + "\n\n")
	sc, err := e.cfg.Store.ApprovedScopeCard(ctx, wf.ID)
	switch {
	case err == nil:
		b.WriteString("Approved scope card:\n" + scopeMarkdown(sc) + "\n")
	case !errors.Is(err, store.ErrNotFound):
		return "", err
	}
	r, err := e.cfg.Store.ApprovedResearch(ctx, wf.ID)
	switch {
	case err == nil:
		b.WriteString(researchCard(r).approval.Detail + "\n")
	case !errors.Is(err, store.ErrNotFound):
		return "", err
	}
	p, err := e.cfg.Store.ApprovedPlan(ctx, wf.ID)
	switch {
	case err == nil:
		b.WriteString(planCard(p).approval.Detail)
	case !errors.Is(err, store.ErrNotFound):
		return "", err
	}
	return b.String(), nil
}
