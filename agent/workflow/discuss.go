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
// discussion (no workflow). It talks in the editor's thread (DiscussIn "").
func (e *Engine) Discuss(ctx context.Context, message string) (string, error) {
	return e.DiscussIn(ctx, "", message)
}

// DiscussIn is Discuss in one of several threads (an ACP client's sessions,
// by id): each thread has its own conversation, so one thread's messages
// never reach another's model context. Threads take turns.
func (e *Engine) DiscussIn(ctx context.Context, thread, message string) (string, error) {
	message = strings.TrimSpace(message)
	if message == "" {
		return "", errors.New("the message is empty: ask something about the code")
	}
	e.chatMu.Lock()
	defer e.chatMu.Unlock()
	chat := e.chats[thread]
	if chat == nil {
		c, err := e.open(ctx, store.Workflow{Stage: string(StageDiscussion)}, StageDiscussion, "", talkOptions{Root: e.cfg.Repo.Top()})
		if err != nil {
			return "", err
		}
		if e.chats == nil {
			e.chats = map[string]*conversation{}
		}
		e.chats[thread], chat = c, c
	}
	e.emit(Event{Kind: "message", Stage: string(StageDiscussion), Status: agent.RoleUser, Text: message})
	out, err := chat.agent.RunTurn(ctx, message)
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

// EndThread forgets a discussion thread's conversation: its next message
// starts a new one.
func (e *Engine) EndThread(thread string) {
	e.chatMu.Lock()
	defer e.chatMu.Unlock()
	if c := e.chats[thread]; c != nil {
		c.close()
		delete(e.chats, thread)
	}
}

// Close releases the discussion agent's sessions.
func (e *Engine) Close() {
	e.chatMu.Lock()
	defer e.chatMu.Unlock()
	for thread, c := range e.chats {
		c.close()
		delete(e.chats, thread)
	}
}
