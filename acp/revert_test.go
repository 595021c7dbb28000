package acp

import (
	"encoding/json"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/internal/testkit"
)

// TestRevertRedoCommands: workflow mode offers /revert and /redo as
// available commands; /revert asks a permission request listing the
// pulses and files it undoes (kept: nothing changes; confirmed: the
// pulse is reverted on the workflow branch), and /redo PULSE GUIDANCE
// runs it again, with the guidance, to completion; mistakes are said in
// the turn.
func TestRevertRedoCommands(t *testing.T) {
	p := serve(t, testAgentWith(t, streamingModel(t, "testdata/revert.txt")))
	repo := calcRepo(t)
	id := openSession(t, p, repo)
	r, updates := p.exchange(3, `{"jsonrpc":"2.0","id":3,"method":"session/set_mode","params":{"sessionId":`+quote(id)+`,"modeId":"workflow"}}`)
	if r.Error != nil {
		t.Fatalf("session/set_mode: %+v", r.Error)
	}
	if got := availableCommands(t, updates); !slices.Equal(got, []string{"revert", "redo"}) {
		t.Errorf("workflow mode offers %v, want revert and redo", got)
	}

	n := 3
	var lastPlan string // the last plan update
	prompt := func(text string, choose string) (string, []string) {
		t.Helper()
		n++
		var asked []string
		r, updates := p.exchangeAnswering(n, promptRequest(n, id, text),
			func(req permissionRequest) string {
				if req.has("revert") {
					asked = append(asked, req.ToolCall.Title+"\n"+req.text())
					return choose
				}
				return "approve"
			})
		if r.Error != nil {
			t.Fatalf("%s: %+v", text, r.Error)
		}
		got, _ := messageChunks(t, updates, "")
		for _, u := range updates {
			if strings.Contains(string(u), `"sessionUpdate":"plan"`) {
				lastPlan = string(u)
			}
		}
		return got, asked
	}
	if got, _ := prompt("/revert 1", ""); !strings.Contains(got, "no workflow yet") {
		t.Errorf("/revert before any workflow says %q", got)
	}
	if got, _ := prompt("Add Sub", ""); !strings.Contains(got, "completed") {
		t.Fatalf("the workflow did not complete: %s", got)
	}
	branch := gitOut(t, repo, "for-each-ref", "--format=%(refname:short)", "refs/heads/autarch/")
	first := gitOut(t, repo, "rev-parse", branch)
	if got, _ := prompt("/revert pulse-9", ""); !strings.Contains(got, "pulse-9") {
		t.Errorf("/revert of an unknown pulse says %q", got)
	}
	if got, _ := prompt("/redo 1", ""); !strings.Contains(got, "revert it first") {
		t.Errorf("/redo of a pulse not reverted says %q", got)
	}
	got, asked := prompt("/revert 1", "keep")
	if len(asked) != 1 || !strings.Contains(asked[0], "Revert pulse-1 of add-sub") || !strings.Contains(asked[0], "calc.go") || !strings.Contains(asked[0], "feat(calc): add Sub") {
		t.Errorf("the confirmation asked %q, want the pulse and its files", asked)
	}
	if !strings.Contains(got, "Nothing was reverted") || gitOut(t, repo, "rev-parse", branch) != first {
		t.Errorf("kept: %q, and the branch moved", got)
	}
	got, _ = prompt("/revert 1", "revert")
	if !strings.Contains(got, "Reverted pulse-1 of add-sub") || !strings.Contains(got, "/redo pulse-1") {
		t.Errorf("/revert says %q", got)
	}
	if !strings.Contains(lastPlan, "Pulse pulse-1: Add Sub (reverted: /redo pulse-1 runs it again)") {
		t.Errorf("after the revert the plan shows %s", lastPlan)
	}
	if tree := gitOut(t, repo, "show", branch+":calc.go"); strings.Contains(tree, "Sub") {
		t.Errorf("after the revert the workflow branch still has Sub:\n%s", tree)
	}
	got, _ = prompt("/redo 1 subtract, do not add", "")
	if !strings.Contains(got, "with your guidance") || !strings.Contains(got, "completed") {
		t.Errorf("/redo says %q", got)
	}
	if tree := gitOut(t, repo, "show", branch+":calc.go"); !strings.Contains(tree, "return a - b") {
		t.Errorf("after the redo the workflow branch has:\n%s", tree)
	}
}

// calcRepo is a Go module with one function, committed.
func calcRepo(t *testing.T) string {
	t.Helper()
	return testkit.NewRepo(t, map[string]string{"calc.go": "package calc\n\nfunc Add(a, b int) int { return a + b }\n", "go.mod": "module calc\n\ngo 1.22\n"})
}

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return strings.TrimSpace(testkit.Git(t, dir, args...))
}

// availableCommands are the names of the last available commands update.
func availableCommands(t *testing.T, updates []json.RawMessage) []string {
	t.Helper()
	var names []string
	for _, raw := range updates {
		var n struct {
			Update struct {
				SessionUpdate     string `json:"sessionUpdate"`
				AvailableCommands []struct {
					Name string `json:"name"`
				} `json:"availableCommands"`
			} `json:"update"`
		}
		if json.Unmarshal(raw, &n) == nil && n.Update.SessionUpdate == "available_commands_update" {
			names = []string{}
			for _, c := range n.Update.AvailableCommands {
				names = append(names, c.Name)
			}
		}
	}
	return names
}

// permissionRequest is what the tests read of session/request_permission.
type permissionRequest struct {
	ToolCall struct {
		Title   string `json:"title"`
		Content []struct {
			Content struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"content"`
	} `json:"toolCall"`
	Options []struct {
		OptionID string `json:"optionId"`
	} `json:"options"`
}

func (r permissionRequest) has(option string) bool {
	return slices.ContainsFunc(r.Options, func(o struct {
		OptionID string `json:"optionId"`
	}) bool {
		return o.OptionID == option
	})
}

func (r permissionRequest) text() string {
	var b strings.Builder
	for _, c := range r.ToolCall.Content {
		b.WriteString(c.Content.Text)
	}
	return b.String()
}

// exchangeAnswering is exchange with each permission request answered by
// the option choose picks ("" cancels it).
func (p *rawPeer) exchangeAnswering(id int, line string, choose func(permissionRequest) string) (rpcReply, []json.RawMessage) {
	p.t.Helper()
	if _, err := io.WriteString(p.w, line+"\n"); err != nil {
		p.t.Fatal(err)
	}
	var updates []json.RawMessage
	for p.r.Scan() {
		var m struct {
			rpcReply
			Params json.RawMessage `json:"params"`
		}
		if err := json.Unmarshal(p.r.Bytes(), &m); err != nil {
			p.t.Fatalf("autarch wrote a line that is not JSON: %s", p.r.Bytes())
		}
		switch m.Method {
		case "session/update":
			updates = append(updates, m.Params)
		case "session/request_permission":
			var req permissionRequest
			json.Unmarshal(m.Params, &req)
			outcome := `{"outcome":"cancelled"}`
			if opt := choose(req); opt != "" {
				outcome = `{"outcome":"selected","optionId":` + quote(opt) + `}`
			}
			io.WriteString(p.w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{"outcome":`+outcome+`}}`+"\n")
		}
		if m.Method == "" && string(m.ID) == jsonInt(id) {
			return m.rpcReply, updates
		}
	}
	p.t.Fatalf("no reply to %s: %v", line, p.r.Err())
	return rpcReply{}, nil
}
