package orchestrate

import (
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/agent"
)

func TestRecentRounds(t *testing.T) {
	var msgs []agent.Message
	for r := 1; r <= 4; r++ {
		msgs = append(msgs, agent.Message{Role: agent.RoleUser, Content: roundMarker(r) + " go"},
			agent.Message{Role: agent.RoleAssistant, ToolCalls: []agent.ToolCall{{ID: "c", Name: "ctx_keys"}}},
			agent.Message{Role: agent.RoleTool, ToolCallID: "c", Content: "{}"},
			agent.Message{Role: agent.RoleAssistant, Content: "done"})
	}
	if got := recent(msgs[:8], 2); len(got) != 8 {
		t.Errorf("round 2 sees %d messages, want all 8", len(got))
	}
	got := recent(msgs, 4)
	if len(got) != 9 || !strings.Contains(got[0].Content, "Rounds 1 to 2 are left out") || !strings.HasPrefix(got[1].Content, roundMarker(3)) {
		t.Fatalf("round 4 sees %d messages starting %q, %q", len(got), got[0].Content, got[1].Content)
	}
	if got := recent(append(append([]agent.Message(nil), msgs[:4]...), msgs[12:]...), 4); len(got) != 8 {
		t.Errorf("without round 3's marker the conversation is kept whole: %d", len(got))
	}
}
