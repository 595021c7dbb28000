package acp

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"reflect"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/tools"
)

func TestToolKind(t *testing.T) {
	for tool, want := range map[string]sdk.ToolKind{
		"read_file": sdk.ToolKindRead, "list_directory": sdk.ToolKindRead, "get_diff": sdk.ToolKindRead,
		"grep": sdk.ToolKindSearch, "semantic_search": sdk.ToolKindSearch, "find_files": sdk.ToolKindSearch,
		"web_search": sdk.ToolKindFetch,
		"edit_file":  sdk.ToolKindEdit, "write_file": sdk.ToolKindEdit, "apply_patch": sdk.ToolKindEdit, "multi_edit": sdk.ToolKindEdit,
		"delete_file": sdk.ToolKindDelete,
		"shell":       sdk.ToolKindExecute, "run_tests": sdk.ToolKindExecute, "commit_changes": sdk.ToolKindExecute,
		"take_note": sdk.ToolKindThink, "dispatch_subagent": sdk.ToolKindThink,
		"submit_scope": sdk.ToolKindOther, "mcp_github_create_issue": sdk.ToolKindOther, "": sdk.ToolKindOther,
	} {
		if got := toolKind(catalogTool(t, tool)); got != want {
			t.Errorf("toolKind(%q) = %q, want %q", tool, got, want)
		}
	}
}

func optionIDs(opts []sdk.PermissionOption) []string {
	var out []string
	for _, o := range opts {
		out = append(out, string(o.OptionId)+":"+string(o.Kind))
	}
	return out
}

func TestPermissionOptions(t *testing.T) {
	for _, c := range []struct {
		name string
		a    editor.Approval
		want []string
	}{
		{"scope card", editor.Approval{Kind: "scope"}, []string{"approve:allow_once", "changes:reject_once"}},
		{"plan card", editor.Approval{Kind: "plan"}, []string{"approve:allow_once", "changes:reject_once"}},
		{"extension", editor.Approval{Kind: "extension"}, []string{"approve:allow_once", "changes:reject_once"}},
		{"sensitive tool", editor.Approval{Kind: "tool", AllowAlways: true, AllowAbort: true},
			[]string{"approve:allow_once", "always:allow_always", "reject:reject_once", "abort:reject_always"}},
		{"tool without always", editor.Approval{Kind: "tool"}, []string{"approve:allow_once", "reject:reject_once"}},
		{"trust", editor.Approval{Kind: "trust"}, []string{"approve:allow_once", "reject:reject_once"}},
	} {
		if got := optionIDs(permissionOptions(c.a)); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: options %v, want %v", c.name, got, c.want)
		}
	}
}

func selected(id string) sdk.RequestPermissionResponse {
	return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeSelected(sdk.PermissionOptionId(id))}
}

func TestVerdict(t *testing.T) {
	for _, c := range []struct {
		res  sdk.RequestPermissionResponse
		want editor.Decision
	}{
		{selected("approve"), editor.DecisionApprove},
		{selected("always"), editor.DecisionAlwaysAllow},
		{selected("reject"), editor.DecisionReject},
		{selected("abort"), editor.DecisionAbort},
		{selected("changes"), editor.DecisionDismissed}, // the next prompt says what to change
		{selected("made-up"), editor.DecisionDismissed}, // never approval
		{sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeCancelled()}, editor.DecisionDismissed},
	} {
		if got := verdict(c.res).Decision; got != c.want {
			t.Errorf("verdict(%+v) = %q, want %q", c.res.Outcome, got, c.want)
		}
	}
}

func TestChosen(t *testing.T) {
	choices := []string{"SQLite", "Postgres"}
	for _, c := range []struct {
		res  sdk.RequestPermissionResponse
		want string
	}{
		{selected("choice-1"), "Postgres"},
		{selected("choice-0"), "SQLite"},
		{selected("choice-2"), ""},
		{selected("choice--1"), ""},
		{selected("approve"), ""},
		{sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeCancelled()}, ""},
	} {
		if got := chosen(c.res, choices); got != c.want {
			t.Errorf("chosen(%+v) = %q, want %q", c.res.Outcome, got, c.want)
		}
	}
}

func TestPlanEntries(t *testing.T) {
	d := editor.WorkflowDetail{
		Stages: []editor.StageView{{Stage: "scoping", State: "done"}, {Stage: "preflight", State: "done"}, {Stage: "pulsing", State: "current"},
			{Stage: "review", State: "todo"}, {Stage: "done", State: "todo"}},
		Pulses: []editor.PulseView{{ID: "p1", Title: "Add Sub", Status: "Succeeded"}, {ID: "p2", Title: "Test Sub", Status: "Running"},
			{ID: "p3", Title: "Docs", Status: "Failed", FailureReason: "tests fail"}, {ID: "p4", Title: "Later", Status: "Proposed"}},
	}
	var got []string
	for _, e := range planEntries(d) {
		got = append(got, e.Content+"|"+string(e.Status)+"|"+string(e.Priority))
	}
	want := []string{"Scoping|completed|medium", "Preflight|completed|medium", "Pulsing|in_progress|medium",
		"Pulse p1: Add Sub|completed|high", "Pulse p2: Test Sub|in_progress|high", "Pulse p3: Docs (failed — tests fail)|pending|high",
		"Pulse p4: Later|pending|high", "Review|pending|medium"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("plan entries\n got %q\nwant %q", got, want)
	}
	if e := planEntries(editor.WorkflowDetail{}); e == nil || len(e) != 0 {
		t.Errorf("an empty workflow's plan is %v, want [] (the schema wants an array)", e)
	}
}

func TestCallTracker(t *testing.T) {
	c := newCallTracker(testCatalog(t))
	ups := c.fromWorkflow(editor.WorkflowEvent{Kind: editor.EventToolCall, Tool: "edit_file", ToolCallID: "call_1", Reason: "Add Sub"}, "/repo",
		func(string) []byte {
			return []byte(`{"path":"main.go","oldString":"a","newString":"b","reason":"Add Sub"}`)
		})
	tc := ups[0].ToolCall
	if tc == nil || tc.ToolCallId != "call_1" || tc.Title != "Add Sub" || tc.Kind != sdk.ToolKindEdit || tc.Status != sdk.ToolCallStatusInProgress {
		t.Fatalf("tool_call %+v", tc)
	}
	if len(tc.Locations) != 1 || tc.Locations[0].Path != "/repo/main.go" {
		t.Errorf("locations %+v", tc.Locations)
	}
	if len(tc.Content) != 1 || tc.Content[0].Diff == nil || tc.Content[0].Diff.NewText != "b" || *tc.Content[0].Diff.OldText != "a" {
		t.Errorf("diff %+v", tc.Content)
	}
	// A call without a model id gets one; a result without an id closes
	// the oldest open call of its tool.
	c.fromWorkflow(editor.WorkflowEvent{Kind: editor.EventToolCall, Tool: "shell", Reason: "Run tests"}, "/repo", nil)
	res := c.fromWorkflow(editor.WorkflowEvent{Kind: editor.EventToolResult, Tool: "shell", Text: "ok", Failed: true}, "/repo", nil)
	if len(res) != 1 || res[0].ToolCallUpdate == nil || !strings.HasPrefix(string(res[0].ToolCallUpdate.ToolCallId), "autarch-call-") ||
		*res[0].ToolCallUpdate.Status != sdk.ToolCallStatusFailed {
		t.Errorf("shell result %+v", res)
	}
	// A result of an unknown call sends nothing.
	if res := c.fromWorkflow(editor.WorkflowEvent{Kind: editor.EventToolResult, Tool: "grep", ToolCallID: "nope"}, "/repo", nil); res != nil {
		t.Errorf("result of an unknown call: %+v", res)
	}
	// The sensitive call being confirmed is the approval's call.
	if a := c.forApproval(editor.Approval{Kind: "tool", Title: "Run rm?"}); a.start != nil || a.update.ToolCallId != "call_1" {
		t.Errorf("tool approval on %+v", a)
	}
	// A card gets a call of its own showing the card.
	a := c.forApproval(editor.Approval{Kind: "scope", Title: "Scope: Add Sub", Detail: "## Add Sub"})
	if a.start == nil || a.start.ToolCall.Title != "Scope: Add Sub" || a.start.ToolCall.Content[0].Content.Content.Text.Text != "## Add Sub" {
		t.Errorf("card approval %+v", a)
	}
	// The user's own messages are not echoed; the agent's are.
	if u := c.fromWorkflow(editor.WorkflowEvent{Kind: editor.EventMessage, Status: "user", Text: "hi"}, "", nil); u != nil {
		t.Errorf("user message echoed: %+v", u)
	}
	if u := c.fromWorkflow(editor.WorkflowEvent{Kind: editor.EventMessage, Status: "assistant", Text: "Done."}, "", nil); len(u) != 1 || u[0].AgentMessageChunk == nil {
		t.Errorf("assistant message: %+v", u)
	}
}

func TestLocationsAndDiffs(t *testing.T) {
	for _, c := range []struct {
		tool, args string
		locs       []string
		diffs      int
	}{
		{"read_file", `{"path":"a/b.go"}`, []string{"/r/a/b.go"}, 0},
		{"write_file", `{"path":"n.go","content":"x"}`, []string{"/r/n.go"}, 1},
		{"multi_edit", `{"path":"m.go","edits":[{"oldString":"a","newString":"b"},{"oldString":"c","newString":"d"}]}`, []string{"/r/m.go"}, 2},
		{"add_line_comment", `{"file_path":"m.go","start_line":5}`, []string{"/r/m.go"}, 0},
		{"read_file", `{"path":"/abs/x.go"}`, []string{"/abs/x.go"}, 0},
		{"shell", `{"command":"ls"}`, nil, 0},
		{"edit_file", `not json`, nil, 0},
		{"edit_file", ``, nil, 0},
	} {
		locs, diffs := locationsAndDiffs(catalogTool(t, c.tool), []byte(c.args), "/r")
		var paths []string
		for _, l := range locs {
			paths = append(paths, l.Path)
		}
		if !reflect.DeepEqual(paths, c.locs) || len(diffs) != c.diffs {
			t.Errorf("%s %s: locations %v diffs %d, want %v %d", c.tool, c.args, paths, len(diffs), c.locs, c.diffs)
		}
	}
}

func pending(kind string, payload any) editor.PendingView {
	b, _ := json.Marshal(payload)
	return editor.PendingView{ID: "p1", Kind: kind, Payload: string(b)}
}

func TestAnswersFor(t *testing.T) {
	qs := []editor.Question{
		{Type: editor.SingleSelect, Prompt: "Which store?", Options: []string{"SQLite", "Postgres"}},
		{Type: editor.MultiSelect, Prompt: "Which checks?", Options: []string{"vet", "lint", "test"}},
		{Type: editor.FreeText, Prompt: "Anything else?"},
	}
	got, err := answersFor(pending("questions", qs), "1. 2\n2) lint, 3\n\n3. Keep it small, please")
	if err != nil {
		t.Fatal(err)
	}
	want := []editor.Answer{{Values: []string{"Postgres"}}, {Values: []string{"lint", "test"}}, {Values: []string{"Keep it small, please"}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("answers %+v, want %+v", got, want)
	}
	// One question takes the whole text, a choice by its name.
	got, err = answersFor(pending("questions", qs[:1]), "sqlite")
	if err != nil || got[0].Values[0] != "SQLite" {
		t.Errorf("single answer %+v %v", got, err)
	}
	// Too few lines is refused with what to do.
	_, err = answersFor(pending("questions", qs), "Postgres")
	if err == nil || !strings.Contains(err.Error(), "one line per question") {
		t.Errorf("too few lines: %v", err)
	}
	// A reply is the text.
	if got, _ := answersFor(pending("reply", map[string]string{"message": "?"}), "Use Go 1.26"); got[0].Values[0] != "Use Go 1.26" {
		t.Errorf("reply %+v", got)
	}
	// A damaged payload is an error, not a panic.
	if _, err := answersFor(editor.PendingView{ID: "p", Kind: "questions", Payload: "{"}, "x"); err == nil {
		t.Error("damaged payload accepted")
	}
}

func TestVerdictFromText(t *testing.T) {
	for text, want := range map[string]editor.Verdict{
		"approve":                {Decision: editor.DecisionApprove},
		" LGTM! ":                {Decision: editor.DecisionApprove},
		"yes":                    {Decision: editor.DecisionApprove},
		"Split it into two PRs.": {Decision: editor.DecisionReject, Feedback: "Split it into two PRs."},
		"approve, but rename it": {Decision: editor.DecisionReject, Feedback: "approve, but rename it"},
	} {
		if got := verdictFromText(text); got != want {
			t.Errorf("verdictFromText(%q) = %+v, want %+v", text, got, want)
		}
	}
}

func TestPendingText(t *testing.T) {
	qs := []editor.Question{{Type: editor.SingleSelect, Prompt: "Which store?", Options: []string{"SQLite", "Postgres"}}, {Type: editor.FreeText, Prompt: "Why?"}}
	got := pendingText(pending("questions", qs))
	for _, want := range []string{"1. Which store? (pick one: SQLite; Postgres)", "2. Why?", "one line per question"} {
		if !strings.Contains(got, want) {
			t.Errorf("pending questions text %q lacks %q", got, want)
		}
	}
	got = pendingText(pending("scope", editor.Approval{Kind: "scope", Title: "Scope: Add Sub"}))
	if !strings.Contains(got, `"Scope: Add Sub" waits for your decision`) || !strings.Contains(got, `reply "approve"`) {
		t.Errorf("pending card text %q", got)
	}
}

func TestUsage(t *testing.T) {
	u := editor.UsageView{PromptTokens: 120, CompletionTokens: 9, Cost: 0.0125}
	up := usageUpdate(u, 0, 0.5).UsageUpdate
	if up == nil || up.Used != 129 || up.Size != 128000 || up.Cost.Amount != 0.5 || up.Cost.Currency != "USD" {
		t.Errorf("usage update %+v", up)
	}
	if up := usageUpdate(u, 32000, 0).UsageUpdate; up.Size != 32000 {
		t.Errorf("window %d, want the settings' 32000", up.Size)
	}
}

func TestPromptText(t *testing.T) {
	blocks := []sdk.ContentBlock{
		sdk.TextBlock("Explain "),
		sdk.ResourceLinkBlock("main.go", "file:///r/main.go"),
		sdk.ResourceBlock(sdk.EmbeddedResourceResource{TextResourceContents: &sdk.TextResourceContents{Uri: "file:///r/a.go", Text: "package a"}}),
		sdk.ImageBlock("AAAA", "image/png"),
	}
	got := promptText(blocks)
	for _, want := range []string{"Explain  file:///r/main.go", "file:///r/a.go:\n```\npackage a\n```"} {
		if !strings.Contains(got, want) {
			t.Errorf("prompt text %q lacks %q", got, want)
		}
	}
	if promptText([]sdk.ContentBlock{sdk.ImageBlock("AAAA", "image/png")}) != "" {
		t.Error("an image-only prompt has text")
	}
}

func TestMCPServers(t *testing.T) {
	list := []sdk.McpServer{
		{Stdio: &sdk.McpServerStdio{Name: "fs", Command: "npx", Args: []string{"-y", "server-filesystem"}, Env: []sdk.EnvVariable{{Name: "ROOT", Value: "/r"}}}},
		{Http: &sdk.McpServerHttpInline{Name: "gh", Type: "http", Url: "https://example.com/mcp", Headers: []sdk.HttpHeader{{Name: "Authorization", Value: "Bearer x"}}}},
		{Sse: &sdk.McpServerSseInline{Name: "old", Type: "sse", Url: "https://example.com/sse"}},
		{}, // an unknown transport is left out
	}
	got, err := mcpServers(list, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]tools.MCPServer{
		"fs":  {Type: "stdio", Command: "npx", Args: []string{"-y", "server-filesystem"}, Env: map[string]string{"ROOT": "/r"}},
		"gh":  {Type: "http", URL: "https://example.com/mcp", Headers: map[string]string{"Authorization": "Bearer x"}},
		"old": {Type: "sse", URL: "https://example.com/sse", Headers: map[string]string{}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("mcpServers\n got %+v\nwant %+v", got, want)
	}
	twice := append(list[:1:1], sdk.McpServer{Http: &sdk.McpServerHttpInline{Name: "fs", Type: "http", Url: "https://example.com/fs"}})
	if _, err := mcpServers(twice, slog.New(slog.DiscardHandler)); err == nil || !strings.Contains(errText(err), `mcpServers names "fs" twice`) {
		t.Errorf("a name given twice: %v", err)
	}
}

func TestStreamedMessageSentOnce(t *testing.T) {
	s := &session{calls: newCallTracker(testCatalog(t))}
	msg := editor.WorkflowEvent{Kind: editor.EventMessage, Status: "assistant", Text: "Answer."}
	call := editor.WorkflowEvent{Kind: editor.EventToolCall, Tool: "read_file"}
	sub := editor.WorkflowEvent{Kind: editor.EventToolCall, Tool: "grep", ParentToolCallID: "call_9"}
	otherCall := editor.WorkflowEvent{Kind: editor.EventToolCall, Tool: "read_file", Stage: "execution", PulseID: "p2"}
	otherMsg := editor.WorkflowEvent{Kind: editor.EventMessage, Status: "assistant", Text: "Other.", Stage: "execution", PulseID: "p2"}
	for _, c := range []struct {
		name     string
		streamed bool
		events   []editor.WorkflowEvent
		want     []bool
	}{
		{"nothing streamed: the message is sent", false, []editor.WorkflowEvent{msg}, []bool{false}},
		{"streamed: the message adds nothing, once", true, []editor.WorkflowEvent{msg, msg}, []bool{true, false}},
		{"a tool call after streamed text starts a new message", true, []editor.WorkflowEvent{call, msg}, []bool{false, false}},
		{"a sub-agent's call does not", true, []editor.WorkflowEvent{sub, msg}, []bool{false, true}},
		{"the user's message is never skipped", true, []editor.WorkflowEvent{{Kind: editor.EventMessage, Status: "user"}}, []bool{false}},
		{"another pulse's call does not", true, []editor.WorkflowEvent{otherCall, msg}, []bool{false, true}},
		{"another pulse's message is sent", true, []editor.WorkflowEvent{otherMsg, msg}, []bool{false, true}},
	} {
		s.streamed = map[string]bool{streamKey("", ""): c.streamed}
		for i, ev := range c.events {
			if got := s.wasStreamed(ev); got != c.want[i] {
				t.Errorf("%s: event %d skipped=%v, want %v", c.name, i, got, c.want[i])
			}
		}
	}
}

func TestWithHistory(t *testing.T) {
	var lines []chatLine
	for i := range 30 {
		lines = append(lines, chatLine{Role: "user", Text: fmt.Sprintf("question %d", i)})
	}
	lines = append(lines, chatLine{Role: "assistant", Text: strings.Repeat("x", 3000)})
	got := withHistory(lines, "And then?")
	if !strings.HasPrefix(got, "Earlier in this conversation") || !strings.HasSuffix(got, "\nNow: And then?") {
		t.Errorf("shape: %q…%q", got[:40], got[len(got)-20:])
	}
	if strings.Contains(got, "question 10\n") || !strings.Contains(got, "question 11\n") || !strings.Contains(got, "question 29\n") {
		t.Error("not the latest 20 lines")
	}
	if strings.Contains(got, strings.Repeat("x", 2001)) || !strings.Contains(got, strings.Repeat("x", 2000)+"…") {
		t.Error("a long line is not clipped")
	}
}

// TestSubagentCallsApart: a sub-agent numbers its calls afresh, so its
// call_1 must not be taken for the parent agent's call_1: keyed under its
// dispatch call, each start and result pairs with its own ACP tool call.
func TestSubagentCallsApart(t *testing.T) {
	c := newCallTracker(testCatalog(t))
	start := func(ev editor.WorkflowEvent) sdk.ToolCallId {
		ev.ToolCallID = subagentCallKey(ev.ParentToolCallID, ev.ToolCallID)
		ups := c.fromWorkflow(ev, t.TempDir(), nil)
		if len(ups) != 1 || ups[0].ToolCall == nil {
			t.Fatalf("start %+v = %+v", ev, ups)
		}
		return ups[0].ToolCall.ToolCallId
	}
	own := start(editor.WorkflowEvent{Kind: editor.EventToolCall, Tool: "read_file", ToolCallID: "call_1"})
	sub := start(editor.WorkflowEvent{Kind: editor.EventToolCall, Tool: "read_file", ToolCallID: "call_1", ParentToolCallID: "call_0"})
	if own == sub {
		t.Fatalf("the sub-agent's call_1 and the agent's call_1 share ACP tool call %s", own)
	}
	ev := editor.WorkflowEvent{Kind: editor.EventToolResult, Tool: "read_file", ToolCallID: subagentCallKey("call_0", "call_1"), Text: "sub"}
	ups := c.fromWorkflow(ev, "", nil)
	if len(ups) != 1 || ups[0].ToolCallUpdate == nil || ups[0].ToolCallUpdate.ToolCallId != sub {
		t.Errorf("the sub-agent's result updates %+v, want tool call %s", ups, sub)
	}
	if subagentCallKey("", "call_1") != "call_1" || subagentCallKey("call_0", "") != "" {
		t.Error("the agent's own calls (and calls without an id) keep their id")
	}
}

// A prompt's answer is read as the terminal reads it (editor.ParseAnswer):
// a choice that is no option is refused with the options, not passed on.
func TestAnswersForRefusesNoOption(t *testing.T) {
	qs := []editor.Question{{Type: editor.SingleSelect, Prompt: "Which store?", Options: []string{"SQLite", "Postgres"}}}
	_, err := answersFor(pending("questions", qs), "MySQL")
	if err == nil || !strings.Contains(err.Error(), "1) SQLite, 2) Postgres") {
		t.Errorf("answer MySQL: %v, want a refusal naming the options", err)
	}
	got, err := answersFor(pending("questions", []editor.Question{{Type: editor.Ranked, Prompt: "Rank", Options: []string{"a", "b"}}}), "2 1")
	if err != nil || strings.Join(got[0].Values, ",") != "b,a" {
		t.Errorf("ranked by numbers and spaces: %+v %v", got, err)
	}
}
