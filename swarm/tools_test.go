package swarm

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autarch-dev/autarch/internal/testkit"
	"github.com/autarch-dev/autarch/tools"
)

// project is a small workspace with a secret file and a file holding a key.
func project(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, map[string]string{
		"scripts/ai_swarm.py": "import os\n\ndef main():\n    print('swarm')\n",
		"scripts/util.py":     "def helper():\n    return 1\n",
		"docs/notes.md":       "# Notes\ndef main is documented here\n",
		".env":                "API_TOKEN=abc\n",
		"leak.py":             "def main():\n    key = 'AKIAIOSFODNN7EXAMPLE'\n",
		".gitignore":          "build/\n",
		"build/out.py":        "def main(): pass\n",
	})
	return dir
}

// caller runs swarm tools as one agent through the tools engine.
type caller struct {
	t      *testing.T
	engine *tools.Engine
	sess   *tools.Session
}

func newCaller(t *testing.T, s *Swarm, agent, root string) *caller {
	reg, err := Registry(s, agent)
	if err != nil {
		t.Fatal(err)
	}
	sess, err := tools.NewSession(tools.SessionConfig{Root: root, Mode: tools.ModeConfirmSensitive})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	return &caller{t: t, engine: tools.NewEngine(reg, nil, slog.New(slog.DiscardHandler)), sess: sess}
}

// call runs an envelope call (no reason) and decodes its JSON answer.
func (c *caller) call(name, args string) (map[string]any, tools.Result) {
	c.t.Helper()
	res, err := c.engine.Call(context.Background(), c.sess, name, EnvelopeArgs(json.RawMessage(args), "test"))
	if err != nil {
		c.t.Fatalf("%s %s: %v", name, args, err)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(res.Output), &m); err != nil {
		c.t.Fatalf("%s %s: answer is not a JSON object: %s", name, args, res.Output)
	}
	return m, res
}

func TestFSTools(t *testing.T) {
	root := project(t)
	_, s := open(t, t.TempDir(), Options{Limits: Limits{Default: Limit{Calls: 0}}})
	c := newCaller(t, s, "Gemini", root)
	tests := []struct {
		name, tool, args string
		failed           bool
		check            func(t *testing.T, m map[string]any, out string)
	}{
		{"list py files", "fs_list", `{"dir": ".", "pattern": "*.py"}`, false, func(t *testing.T, m map[string]any, out string) {
			if !strings.Contains(out, `{"count":3,"files":["leak.py","scripts/ai_swarm.py","scripts/util.py"]}`) {
				t.Errorf("got %s (ignored build/ and .env must be left out)", out)
			}
		}},
		{"list regex", "fs_list", `{"pattern": "regex:^scripts/.*py$", "max_results": 1}`, false, func(t *testing.T, m map[string]any, out string) {
			if m["count"] != 1.0 || m["total"] != 2.0 || m["truncated"] != true {
				t.Errorf("got %s", out)
			}
		}},
		{"glob that looks like a regex gets a hint", "fs_list", `{"pattern": "py$"}`, false, func(t *testing.T, m map[string]any, out string) {
			if !strings.Contains(out, "regex:py$") {
				t.Errorf("got %s", out)
			}
		}},
		{"list outside the root", "fs_list", `{"dir": "../.."}`, true, nil},
		{"list missing dir", "fs_list", `{"dir": "nope"}`, true, nil},
		{"bad regex", "fs_list", `{"pattern": "regex:("}`, true, nil},
		{"read", "fs_read", `{"path": "scripts/util.py", "max_bytes": 8}`, false, func(t *testing.T, m map[string]any, out string) {
			if m["content"] != "def help" || m["bytes"] != 8.0 || m["truncated"] != true || m["path"] != "scripts/util.py" {
				t.Errorf("got %s", out)
			}
		}},
		{"read a secret file", "fs_read", `{"path": ".env"}`, true, func(t *testing.T, m map[string]any, out string) {
			if strings.Contains(out, "abc") {
				t.Errorf("secret revealed: %s", out)
			}
		}},
		{"read a file with a key", "fs_read", `{"path": "leak.py"}`, true, nil},
		{"read outside", "fs_read", `{"path": "/etc/passwd"}`, true, nil},
		{"search", "search_text", `{"pattern": "def main"}`, false, func(t *testing.T, m map[string]any, out string) {
			want := `{"count":2,"matches":[{"file":"docs/notes.md","line":2,"text":"def main is documented here"},{"file":"scripts/ai_swarm.py","line":3,"text":"def main():"}]}`
			if out != want {
				t.Errorf("got %s\nwant %s (leak.py holds a key, build/ is ignored)", out, want)
			}
		}},
		{"search in dir", "search_text", `{"pattern": "^def", "dir": "scripts", "max_matches": 1}`, false, func(t *testing.T, m map[string]any, out string) {
			if m["count"] != 1.0 || m["total"] != 2.0 {
				t.Errorf("got %s", out)
			}
		}},
		{"search bad regex", "search_text", `{"pattern": "(("}`, true, nil},
		{"propose", "fs_write", `{"path": "docs/new/notes.md", "content": "Hello"}`, false, func(t *testing.T, m map[string]any, out string) {
			if m["queued"] != true || m["id"] == "" {
				t.Errorf("got %s", out)
			}
			if _, err := os.Stat(filepath.Join(root, "docs/new")); err == nil {
				t.Error("a proposal touched the disk")
			}
		}},
		{"propose into .git", "fs_write", `{"path": ".git/config", "content": "x"}`, true, nil},
		{"propose a secret file", "fs_write", `{"path": ".env", "content": "x"}`, true, nil},
		{"propose outside", "fs_write", `{"path": "../x", "content": "x"}`, true, nil},
		{"propose without dirs", "fs_write", `{"path": "a/b/c.txt", "content": "x", "create_dirs": false}`, true, nil},
		{"propose without content", "fs_write", `{"path": "a.txt"}`, true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, res := c.call(tt.tool, tt.args)
			if res.Failed != tt.failed {
				t.Fatalf("failed = %v, want %v: %s", res.Failed, tt.failed, res.Output)
			}
			if tt.check != nil {
				tt.check(t, m, res.Output)
			}
		})
	}
	props, err := s.Pending(context.Background())
	if err != nil || len(props) != 1 || props[0].Path != "docs/new/notes.md" || props[0].Content != "Hello" || props[0].Agent != "Gemini" || !props[0].CreateDirs {
		t.Fatalf("pending: %+v %v", props, err)
	}
	ctx := context.Background()
	if err := s.Decide(ctx, Decision{ProposalID: props[0].ID, Path: props[0].Path, Action: Approve, Notes: "ok", By: "arbiter"}); err != nil {
		t.Fatal(err)
	}
	err = s.Decide(ctx, Decision{ProposalID: props[0].ID, Action: Reject})
	if r := refusal(t, err, ErrAlreadyDone); r.Code != 409 {
		t.Fatal(r)
	}
	refusal(t, s.Decide(ctx, Decision{ProposalID: "nope", Action: Reject}), ErrNotFound)
	refusal(t, s.Decide(ctx, Decision{ProposalID: props[0].ID, Action: "maybe"}), ErrInvalid)
	all, _ := s.Proposals(ctx)
	if len(all) != 1 || all[0].Decision == nil || all[0].Decision.Action != Approve || all[0].Decision.Notes != "ok" {
		t.Fatalf("proposals: %+v", all)
	}
	if p, _ := s.Pending(ctx); len(p) != 0 {
		t.Fatalf("still pending: %+v", p)
	}
}

func TestCoordAndCtxTools(t *testing.T) {
	root := project(t)
	state := t.TempDir()
	_, s := open(t, state, Options{})
	a, b := newCaller(t, s, "Gemini", root), newCaller(t, s, "Claude", root)
	m, _ := a.call("ctx_put", `{"key": "Gemini.list_code_files", "value": {"ok": true, "n": 12345678901234567890}}`)
	if m["ok"] != true || m["version"] == 0.0 {
		t.Fatal(m)
	}
	v := m["version"].(float64)
	_, res := b.call("ctx_get", `{"key": "Gemini.list_code_files"}`)
	if !strings.Contains(res.Output, `"value":{"ok":true,"n":12345678901234567890}`) {
		t.Fatalf("value not kept as sent: %s", res.Output)
	}
	m, res = b.call("ctx_put", `{"key": "Gemini.list_code_files", "value": 1, "mode": "if_version", "expected_version": `+jsonNum(v+7)+`}`)
	if !res.Failed || m["ok"] != false || m["error"] != "version_mismatch" || m["version"] != v {
		t.Fatalf("stale if_version: %s", res.Output)
	}
	if _, res = b.call("ctx_put", `{"key": "x y", "value": 1}`); !res.Failed || !strings.Contains(res.Output, "characters") {
		t.Fatalf("bad key: %s", res.Output)
	}
	if _, res = b.call("ctx_put", `{"key": "k", "value": 1, "mode": "if_version"}`); !res.Failed || !strings.Contains(res.Output, "expected_version") {
		t.Fatalf("if_version without a version: %s", res.Output)
	}
	if m, res = a.call("ctx_put", `{"key": "phase", "value": 9}`); !res.Failed || m["code"] != 403.0 {
		t.Fatalf("an agent set phase: %s", res.Output)
	}
	for _, args := range []string{`{"lease_sec": -5}`, `{"lease_sec": 9223372036854775807}`, `{"lease_sec": 86401}`} {
		if m, res = a.call("coord_next", args); !res.Failed || m["error"] != ErrInvalid {
			t.Fatalf("coord_next %s: %s", args, res.Output)
		}
	}
	if m, res = a.call("coord_extend", `{"id": "x", "extend_sec": 0}`); !res.Failed || m["error"] != ErrInvalid {
		t.Fatalf("extend by 0: %s", res.Output)
	}
	if m, res = a.call("coord_claim", `{"id": "a b"}`); !res.Failed || m["error"] != ErrInvalid {
		t.Fatalf("claim of a bad id: %s", res.Output)
	}
	if _, res = a.call("ctx_keys", `{"prefix": "Gemini."}`); res.Output != `{"keys":["Gemini.list_code_files"]}` {
		t.Fatalf("keys: %s", res.Output)
	}
	m, _ = a.call("coord_enqueue", `{"kind": "scan_docs", "payload": {"dir": "docs"}}`)
	id, _ := m["id"].(string)
	if m["enqueued"] != true || id == "" || m["kind"] != "scan_docs" {
		t.Fatal(m)
	}
	a.call("coord_enqueue", `{"kind": "scan_src"}`)
	if err := s.SetPhase(context.Background(), 2); err != nil {
		t.Fatal(err)
	}
	_, res = a.call("coord_status", `{}`)
	if !strings.Contains(res.Output, `"length":2,"front":{"id":"`+id+`","kind":"scan_docs","payload":{"dir":"docs"},"status":"queued"},"counts":{"queued":2,"claimed":0,"done":0},"phase":2`) {
		t.Fatalf("status: %s", res.Output)
	}
	m, _ = b.call("coord_claim", `{"id": "`+id+`", "lease_sec": 60}`)
	if m["claimed_by"] != "Claude" || m["id"] != id {
		t.Fatal(m)
	}
	m, res = a.call("coord_claim", `{"id": "`+id+`"}`)
	if !res.Failed || m["error"] != ErrClaimed || m["code"] != 409.0 || m["claimed_by"] != "Claude" {
		t.Fatalf("claim of a leased item: %s", res.Output)
	}
	m, _ = a.call("coord_next", `{"lease_sec": 30}`)
	item, _ := m["item"].(map[string]any)
	if item == nil || item["kind"] != "scan_src" || item["claimed_by"] != "Gemini" {
		t.Fatalf("next skips the claimed item: %v", m)
	}
	if m, _ = a.call("coord_next", `{}`); m["item"] != nil {
		t.Fatalf("nothing left: %v", m)
	}
	m, _ = b.call("coord_extend", `{"id": "`+id+`", "extend_sec": 30}`)
	if until, _ := time.Parse(time.RFC3339Nano, m["lease_until"].(string)); time.Until(until) < 80*time.Second {
		t.Fatalf("extend: %v", m)
	}
	if m, res = a.call("coord_extend", `{"id": "`+id+`", "extend_sec": 30}`); m["error"] != ErrNotHolder {
		t.Fatalf("extend of another's lease: %s", res.Output)
	}
	if m, res = a.call("coord_complete", `{"id": "`+id+`", "result": {}}`); m["error"] != ErrNotHolder || m["code"] != 409.0 {
		t.Fatalf("complete of another's lease: %s", res.Output)
	}
	if m, _ = b.call("coord_complete", `{"id": "`+id+`", "result": {"ok": true}}`); m["status"] != "done" || m["id"] != id {
		t.Fatal(m)
	}
	if m, _ = b.call("coord_complete", `{"id": "nope"}`); m["error"] != ErrNotFound || m["code"] != 404.0 {
		t.Fatal(m)
	}
	_, res = a.call("coord_status", `{}`)
	if !strings.Contains(res.Output, `"length":1,"front":null,"counts":{"queued":0,"claimed":1,"done":1}`) {
		t.Fatalf("status: %s", res.Output)
	}
}

func jsonNum(f float64) string { b, _ := json.Marshal(f); return string(b) }

func TestRateLimitShape(t *testing.T) {
	root := project(t)
	clk := newClock()
	_, s := open(t, t.TempDir(), Options{Now: clk.now, Limits: Limits{Default: Limit{Calls: 30, Per: time.Minute}, Tools: map[string]Limit{"fs_read": {Calls: 2, Per: time.Minute}}}})
	a, b := newCaller(t, s, "Gemini", root), newCaller(t, s, "Claude", root)
	for range 2 {
		if _, res := a.call("fs_read", `{"path": "scripts/util.py"}`); res.Failed {
			t.Fatal(res.Output)
		}
	}
	clk.add(48 * time.Second)
	_, res := a.call("fs_read", `{"path": "scripts/util.py"}`)
	want := `{"error":"rate_limited","code":429,"tool":"fs_read","limit":2,"remaining":0,"reset_sec":12,"scope":"Gemini"}`
	if !res.Failed || res.Output != want {
		t.Fatalf("got %s\nwant %s", res.Output, want)
	}
	if _, res := b.call("fs_read", `{"path": "scripts/util.py"}`); res.Failed {
		t.Fatalf("another agent has its own bucket: %s", res.Output)
	}
	if _, res := a.call("fs_list", `{}`); res.Failed {
		t.Fatalf("another tool has its own bucket: %s", res.Output)
	}
	clk.add(12 * time.Second)
	if _, res := a.call("fs_read", `{"path": "scripts/util.py"}`); res.Failed {
		t.Fatalf("the bucket is full again after the window: %s", res.Output)
	}
	rates, err := s.Rates(context.Background())
	if err != nil || len(rates) != 3 {
		t.Fatalf("rates: %+v %v", rates, err)
	}
}

func TestParseLimits(t *testing.T) {
	l, err := ParseLimits("10/30s, fs_read=5/1m,coord_next=0/1s")
	if err != nil || l.For("ctx_get") != (Limit{10, 30 * time.Second}) || l.For("fs_read") != (Limit{5, time.Minute}) || l.For("coord_next").Calls != 0 {
		t.Fatalf("%+v %v", l, err)
	}
	if l, _ := ParseLimits(""); l.For("x") != DefaultLimit {
		t.Fatal(l)
	}
	for _, bad := range []string{"30", "x/60s", "30/forever", "fs_read=-1/1s", "30/0s"} {
		if _, err := ParseLimits(bad); err == nil || !strings.Contains(err.Error(), "CALLS/DURATION") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func TestLimitsFromRepositoryConfig(t *testing.T) {
	t.Setenv(EnvRate, "")
	c, warnings, err := tools.ParseConfig([]byte("swarm:\n  rate_limit: {calls: 10, per_sec: 30}\n  tools:\n    fs_read: {calls: 0, per_sec: 1}\n"))
	if err != nil || len(warnings) != 0 {
		t.Fatal(err, warnings)
	}
	opts, err := OptionsFor(c.Swarm)
	if err != nil || opts.Limits.For("ctx_get") != (Limit{10, 30 * time.Second}) || opts.Limits.For("fs_read").Calls != 0 {
		t.Fatalf("%+v %v", opts.Limits, err)
	}
	t.Setenv(EnvRate, "5/1m")
	if opts, _ = OptionsFor(c.Swarm); opts.Limits.For("ctx_get") != (Limit{5, time.Minute}) || opts.Limits.For("fs_read") != (Limit{5, time.Minute}) {
		t.Fatalf("the environment overrides the repository: %+v", opts.Limits)
	}
	t.Setenv(EnvRate, "")
	if opts, _ = OptionsFor(tools.SwarmConfig{}); opts.Limits.For("x") != DefaultLimit {
		t.Fatalf("no configuration: %+v", opts.Limits)
	}
	for yaml, want := range map[string]string{
		"swarm:\n  rate_limit: {calls: 10, per_sec: 0}\n":          "line 2: key swarm.rate_limit: calls 10 per_sec 0",
		"swarm:\n  tools:\n    fs_read: {calls: -1, per_sec: 5}\n": "key swarm.tools.fs_read: calls -1",
		"swarm:\n  rate_limit: {calls: lots}\n":                    "not a whole number",
	} {
		if _, _, err := tools.ParseConfig([]byte(yaml)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", yaml, err, want)
		}
	}
}
