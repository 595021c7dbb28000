package workflow

import (
	"context"
	"errors"
	"strings"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/agent/workflow/store"
)

// Discuss sends one message to the discussion agent: a read-only chat about
// the code in the user's folder, which keeps its conversation across
// messages. Its answer is returned and emitted as a "message" event of stage
// discussion (no workflow).
func (e *Engine) Discuss(ctx context.Context, message string) (string, error) {
	message = strings.TrimSpace(message)
	if message == "" {
		return "", errors.New("the message is empty: ask something about the code")
	}
	e.chatMu.Lock()
	defer e.chatMu.Unlock()
	if e.chat == nil {
		c, err := e.open(ctx, store.Workflow{Stage: string(StageDiscussion)}, StageDiscussion, "", talkOptions{Root: e.cfg.Repo.Top()})
		if err != nil {
			return "", err
		}
		e.chat = c
	}
	e.emit(Event{Kind: "message", Stage: string(StageDiscussion), Status: agent.RoleUser, Text: message})
	out, err := e.chat.agent.RunTurn(ctx, message)
	if err != nil {
		return "", err
	}
	text := out.Text
	if out.Kind != agent.OutcomeText {
		text = "(the discussion agent stopped: " + out.Text + ")"
	}
	e.emit(Event{Kind: "message", Stage: string(StageDiscussion), Status: agent.RoleAssistant, Text: text})
	return text, nil
}

// Close releases the discussion agent's session.
func (e *Engine) Close() {
	e.chatMu.Lock()
	defer e.chatMu.Unlock()
	if e.chat != nil {
		e.chat.close()
		e.chat = nil
	}
}
