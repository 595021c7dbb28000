package orchestrate

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/autarch-dev/autarch/editor"
)

var twoPending = []editor.SwarmProposal{{ID: "p1", Agent: "explorer", Path: "docs/notes.md"}, {ID: "p2", Agent: "critic", Path: "main.go"}}

func TestParseDecisions(t *testing.T) {
	ok := `{"decisions": [{"path": "docs/notes.md", "action": "approve", "notes": "ok"}, {"path": "main.go", "action": "reject", "notes": "breaks the build"}]}`
	d, err := ParseDecisions("\n "+ok+"\n", twoPending)
	if err != nil {
		t.Fatalf("valid answer refused: %v", err)
	}
	if d["p1"].Action != ActionApprove || d["p2"].Action != ActionReject || d["p2"].Notes != "breaks the build" {
		t.Fatalf("decisions = %+v", d)
	}
	for _, tc := range []struct{ name, answer, want string }{
		{"prose", "I approve both.", "not STRICT JSON"},
		{"fenced", "```json\n" + ok + "\n```", "not STRICT JSON"},
		{"prose after", ok + " Thanks!", "text after the JSON object"},
		{"two objects", ok + ok, "text after the JSON object"},
		{"truncated", ok[:40], "not STRICT JSON"},
		{"no decisions", `{"verdict": "approve"}`, "not STRICT JSON"},
		{"null decisions", `{"decisions": null}`, `no "decisions" list`},
		{"empty", ``, "not STRICT JSON"},
		{"array", `[{"path": "main.go", "action": "approve"}]`, "not STRICT JSON"},
		{"unknown field", `{"decisions": [{"path": "main.go", "action": "approve", "notes": "", "force": true}]}`, "not STRICT JSON"},
		{"bad action", `{"decisions": [{"path": "docs/notes.md", "action": "maybe", "notes": ""}, {"path": "main.go", "action": "reject", "notes": ""}]}`, `action "maybe"`},
		{"unknown path", `{"decisions": [{"path": "../etc/passwd", "action": "approve", "notes": ""}]}`, "no pending proposal writes"},
		{"missing one", `{"decisions": [{"path": "main.go", "action": "approve", "notes": ""}]}`, `no decision for "docs/notes.md"`},
		{"twice", `{"decisions": [{"path": "main.go", "action": "approve", "notes": ""}, {"path": "main.go", "action": "reject", "notes": ""}]}`, "decided twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseDecisions(tc.answer, twoPending)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestParseAgents(t *testing.T) {
	got, err := ParseAgents(nil)
	if err != nil || len(got) != 3 || got[0].Role != RoleExplorer || got[2].Role != RoleCritic || got[1].Model != "" {
		t.Fatalf("default agents = %+v, %v", got, err)
	}
	got, err = ParseAgents([]string{"Gemini=gemini-2.5-pro", "critic=llama3:8b@envelope", "tester"})
	if err != nil {
		t.Fatal(err)
	}
	want := []editor.SwarmAgent{{Name: "Gemini", Model: "gemini-2.5-pro", Role: RoleExplorer}, {Name: "critic", Model: "llama3:8b", Role: RoleCritic, Envelope: true}, {Name: "tester", Role: RoleTester}}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("agent %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	for _, bad := range [][]string{{"=gpt-4o"}, {"a b=x"}, {"../x=m"}, {"x=m", "X=n"}, {" ", ""}, {strings.Repeat("a", 40)}} {
		if _, err := ParseAgents(bad); err == nil {
			t.Errorf("ParseAgents(%q) accepted", bad)
		}
	}
}

func TestTerminalArbiter(t *testing.T) {
	var out strings.Builder
	var recorded []string
	record := func(id string, d Decision) error { recorded = append(recorded, id+":"+d.Action); return nil }
	d, err := TerminalArbiter{In: strings.NewReader("what\na looks good\nr  no tests\n"), Out: &out}.Decide(context.Background(), "s", 1, twoPending, record)
	if err != nil {
		t.Fatal(err)
	}
	if d["p1"] != (Decision{Path: "docs/notes.md", Action: ActionApprove, Notes: "looks good"}) || d["p2"].Action != ActionReject || d["p2"].Notes != "no tests" {
		t.Fatalf("decisions = %+v", d)
	}
	if strings.Join(recorded, " ") != "p1:approve p2:reject" {
		t.Errorf("recorded as answered: %v", recorded)
	}
	if !strings.Contains(out.String(), `"what" is not an answer`) {
		t.Errorf("a bad answer is not explained:\n%s", out.String())
	}
	if _, err := (TerminalArbiter{In: strings.NewReader("a\n"), Out: &out}).Decide(context.Background(), "s", 1, twoPending, nil); err == nil || !strings.Contains(err.Error(), "no answer about main.go") {
		t.Fatalf("end of input: err = %v", err)
	}
}

func TestInbox(t *testing.T) {
	in := NewInbox()
	if err := in.Answer("p1", "maybe", ""); err == nil {
		t.Fatal("an unknown action was accepted")
	}
	done := make(chan map[string]Decision)
	recorded := make(chan string, 2)
	record := func(id string, d Decision) error { recorded <- id + ":" + d.Action; return nil }
	go func() {
		d, _ := in.Decide(context.Background(), "s", 1, twoPending, record)
		done <- d
	}()
	in.Answer("p1", ActionApprove, "")
	if got := <-recorded; got != "p1:approve" {
		t.Errorf("the first answer was recorded as %q before the second came", got)
	}
	select {
	case <-done:
		t.Fatal("decided with one proposal unanswered")
	case <-time.After(50 * time.Millisecond):
	}
	in.Answer("p2", ActionReject, "no")
	if d := <-done; d["p2"] != (Decision{Path: "main.go", Action: ActionReject, Notes: "no"}) {
		t.Fatalf("decisions = %+v", d)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := NewInbox().Decide(ctx, "s", 1, twoPending, nil); err == nil {
		t.Fatal("a cancelled wait returned no error")
	}
}
