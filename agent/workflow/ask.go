package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/tools/terminal"
)

// Kinds of pending items.
const (
	pendingQuestions = "questions"
	pendingExtension = "extension"
	pendingReply     = "reply"
)

// ask records a pending item, runs the question, and resolves the item
// unless the user dismissed it (then the workflow waits: ErrWaiting).
func (e *Engine) ask(ctx context.Context, wf store.Workflow, kind string, payload any, run func() (answer any, dismissed bool, err error)) error {
	if wf.ID == "" { // a review outside a workflow: nothing to keep
		_, dismissed, err := run()
		if err == nil && dismissed {
			err = ErrWaiting
		}
		return err
	}
	raw, err := json.Marshal(payload)
	if err != nil {
		return err
	}
	p := store.Pending{WorkflowID: wf.ID, Stage: wf.Stage, Kind: kind, Payload: raw}
	if err := e.cfg.Store.AddPending(ctx, &p); err != nil {
		return err
	}
	e.emit(Event{Kind: "waiting", WorkflowID: wf.ID, Stage: wf.Stage, Status: kind, Text: p.ID})
	answer, dismissed, err := run()
	if err != nil {
		return fmt.Errorf("ask the user (%s): %w", kind, err)
	}
	if dismissed {
		if err := e.cfg.Store.SetWorkflowStatus(context.WithoutCancel(ctx), wf.ID, store.WorkflowAwaitingUser, "waiting for an answer ("+kind+")"); err != nil {
			return err
		}
		return ErrWaiting
	}
	b, err := json.Marshal(answer)
	if err != nil {
		return err
	}
	return e.cfg.Store.AnswerPending(ctx, p.ID, b)
}

// approve asks the user to approve a card or an extension.
func (e *Engine) approve(ctx context.Context, wf store.Workflow, a editor.Approval) (editor.Verdict, error) {
	a.WorkflowID = wf.ID
	var v editor.Verdict
	err := e.ask(ctx, wf, a.Kind, a, func() (any, bool, error) {
		var err error
		v, err = e.cfg.Editor.Approve(ctx, a)
		return v, !answers(v.Decision), err
	})
	return v, err
}

// answers reports whether a decision answers a card or an extension:
// anything else (dismissed, an "abort" or an unknown answer from a client)
// leaves it pending, never approves it.
func answers(d editor.Decision) bool {
	return d == editor.DecisionApprove || d == editor.DecisionAlwaysAllow || d == editor.DecisionReject
}

// askQuestions asks ask_questions' questions and returns the answers as
// the agent's next input.
func (e *Engine) askQuestions(ctx context.Context, wf store.Workflow, args json.RawMessage) (string, error) {
	var p terminal.AskQuestionsParams
	if err := json.Unmarshal(args, &p); err != nil {
		return "", fmt.Errorf("ask_questions arguments: %w", err)
	}
	qs := p.EditorQuestions()
	var answers []editor.Answer
	err := e.ask(ctx, wf, pendingQuestions, qs, func() (any, bool, error) {
		var err error
		answers, err = e.cfg.Editor.Ask(ctx, qs)
		if err != nil {
			return nil, false, err
		}
		if len(answers) != len(qs) {
			return nil, false, fmt.Errorf("%d answers for %d questions", len(answers), len(qs))
		}
		for _, a := range answers {
			if a.Dismissed {
				return nil, true, nil
			}
		}
		return answers, false, nil
	})
	if err != nil {
		return "", err
	}
	return formatAnswers(qs, answers), nil
}

// formatAnswers is how the agent reads the user's answers.
func formatAnswers(qs []editor.Question, answers []editor.Answer) string {
	var b strings.Builder
	b.WriteString("The user answered your questions:\n")
	for i, q := range qs {
		sep := ", "
		if q.Type == editor.Ranked {
			sep = " > "
		}
		fmt.Fprintf(&b, "%d. %s\n   Answer: %s\n", i+1, q.Prompt, strings.Join(answers[i].Values, sep))
	}
	return b.String()
}

// extend asks the user to approve request_extension and returns the
// agent's next input.
func (e *Engine) extend(ctx context.Context, wf store.Workflow, pulseID string, args json.RawMessage) (string, error) {
	var x terminal.Extension
	if err := json.Unmarshal(args, &x); err != nil {
		return "", fmt.Errorf("request_extension arguments: %w", err)
	}
	if pulseID != "" {
		if _, err := e.cfg.Store.AddExtension(ctx, pulseID); err != nil {
			return "", err
		}
	}
	detail := "Completed:\n" + bullets(x.Completed) + "\nRemaining:\n" + bullets(x.Remaining)
	v, err := e.approve(ctx, wf, editor.Approval{Kind: pendingExtension, Title: "The " + wf.Stage + " agent asks for more time", Detail: detail, Reason: x.Reason})
	if err != nil {
		return "", err
	}
	if v.Decision == editor.DecisionReject {
		e.emit(Event{Kind: "card", WorkflowID: wf.ID, Stage: wf.Stage, PulseID: pulseID, Status: "ExtensionRejected", Card: &editor.CardEvent{Kind: editor.CardExtension, Status: editor.CardRejected}, Text: v.Feedback})
		return "The user declined the extension" + feedbackText(v.Feedback) + " Finish now with what you have.", nil
	}
	e.emit(Event{Kind: "card", WorkflowID: wf.ID, Stage: wf.Stage, PulseID: pulseID, Status: "ExtensionApproved", Card: &editor.CardEvent{Kind: editor.CardExtension, Status: editor.CardApproved}})
	return "Extension approved. Continue with the remaining work:\n" + bullets(x.Remaining), nil
}

// reply asks the user to answer the agent's prose message. "" means there
// is no one to answer (a headless run): the agent is nudged to finish.
func (e *Engine) reply(ctx context.Context, wf store.Workflow, text string) (string, error) {
	q := []editor.Question{{Type: editor.FreeText, Prompt: "Reply to the " + wf.Stage + " agent"}}
	var answers []editor.Answer
	err := e.ask(ctx, wf, pendingReply, map[string]string{"message": text}, func() (any, bool, error) {
		var err error
		answers, err = e.cfg.Editor.Ask(ctx, q)
		if errors.Is(err, editor.ErrNoTTY) {
			return "", false, nil
		}
		if err != nil {
			return nil, false, err
		}
		if len(answers) != 1 || answers[0].Dismissed {
			return nil, true, nil
		}
		return answers, false, nil
	})
	if err != nil || len(answers) != 1 {
		return "", err
	}
	reply := strings.TrimSpace(strings.Join(answers[0].Values, "\n"))
	if reply == editor.NoPreference {
		// Auto-answered (--yes without a terminal): no one read the
		// message, so the agent is nudged and the nudge limit holds.
		return "", nil
	}
	return reply, nil
}

// maxProseQuestions bounds how many questions asked in prose in one stage
// are sent back to the agent with the rule; the next one reaches the user
// as a message to reply to.
const maxProseQuestions = 2

// asksInProse reports whether a message the agent ended its turn with asks
// the user something: a line of its last paragraph ends with a question
// mark (markdown emphasis, quotes and brackets after it aside).
func asksInProse(text string) bool {
	text = strings.TrimSpace(text)
	if i := strings.LastIndex(text, "\n\n"); i >= 0 {
		text = text[i+2:]
	}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, " \t*_`'\")]}»”’")
		if strings.HasSuffix(line, "?") || strings.HasSuffix(line, "？") {
			return true
		}
	}
	return false
}

// questionRule is what an agent that asked in prose is told: questions
// reach the user only through ask_questions (spec: never in prose).
func (c *conversation) questionRule() string {
	spec, _ := agent.Spec(c.role)
	if slices.Contains(spec.Terminal, terminal.AskQuestions) {
		return "Your message ended with a question, which was not put to the user: questions go to the user only through ask_questions, never in prose. " +
			"Call ask_questions with the question (with options where you can), or, if you can decide yourself, say what you assumed and end your turn with one of " + c.terminals() + "."
	}
	return "Your message ended with a question, which was not put to the user: the " + c.role + " agent cannot ask the user questions (questions go only through ask_questions, which this stage does not have). " +
		"Decide yourself, say what you assumed, and end your turn with one of " + c.terminals() + "."
}

func bullets(items []string) string {
	var b strings.Builder
	for _, s := range items {
		b.WriteString("- " + s + "\n")
	}
	return b.String()
}

func feedbackText(fb string) string {
	if strings.TrimSpace(fb) == "" {
		return "."
	}
	return ": " + strings.TrimSpace(fb)
}

// AnswerPending answers a question the workflow left pending (its prompt
// was dismissed, or the editor cannot show that kind of question); the
// answers reach the agent when the workflow resumes.
func (e *Engine) AnswerPending(ctx context.Context, workflowID, pendingID string, answers []editor.Answer) error {
	wf, p, err := e.openPending(ctx, workflowID, pendingID, "question")
	if err != nil {
		return err
	}
	var qs []editor.Question
	if p.Kind == pendingReply {
		qs = []editor.Question{{Type: editor.FreeText, Prompt: "Reply"}}
	} else if p.Kind != pendingQuestions || json.Unmarshal(p.Payload, &qs) != nil {
		return fmt.Errorf("%s is a %s, not a question: approve or reject it instead", pendingID, p.Kind)
	}
	if len(answers) != len(qs) {
		return fmt.Errorf("%d answers for %d questions", len(answers), len(qs))
	}
	for i, a := range answers {
		if len(a.Values) == 0 {
			return fmt.Errorf("question %d has no answer", i+1)
		}
	}
	raw, err := json.Marshal(answers)
	if err != nil {
		return err
	}
	text := formatAnswers(qs, answers)
	if p.Kind == pendingReply {
		text = "The user answered your questions:\n" + strings.Join(answers[0].Values, "\n")
	}
	return e.cfg.Store.Update(ctx, func(tx *store.Tx) error {
		if err := tx.AnswerPending(ctx, pendingID, raw); err != nil {
			return err
		}
		return tx.AddMessage(ctx, &store.Message{WorkflowID: wf.ID, Stage: p.Stage, Role: agent.RoleUser, Content: text})
	})
}

// openPending is a workflow (its id or name) and its open pending item
// pendingID; what names what the item must be ("question", "approval")
// when it is not open or of another workflow.
func (e *Engine) openPending(ctx context.Context, workflowID, pendingID, what string) (store.Workflow, store.Pending, error) {
	wf, err := e.Find(ctx, workflowID)
	if err != nil {
		return store.Workflow{}, store.Pending{}, err
	}
	p, err := e.cfg.Store.PendingItem(ctx, pendingID)
	if err != nil {
		return store.Workflow{}, store.Pending{}, fmt.Errorf("pending item %s: %w", pendingID, err)
	}
	if p.WorkflowID != wf.ID || p.Status != store.PendingOpen {
		return store.Workflow{}, store.Pending{}, fmt.Errorf("%s is not an open %s of workflow %s", pendingID, what, wf.Name)
	}
	return wf, p, nil
}
