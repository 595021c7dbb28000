package testkit

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/autarch-dev/autarch/editor"
)

// Poll returns nil once the condition holds, and the condition's last
// error when the deadline passes first.
func TestPoll(t *testing.T) {
	n := 0
	if err := Poll(5*time.Second, time.Millisecond, func() error {
		if n++; n < 3 {
			return fmt.Errorf("only %d", n)
		}
		return nil
	}); err != nil || n != 3 {
		t.Errorf("Poll = %v after %d calls, want nil after 3", err, n)
	}
	calls := 0
	err := Poll(20*time.Millisecond, time.Millisecond, func() error {
		calls++
		return fmt.Errorf("call %d", calls)
	})
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("call %d", calls)) || !strings.Contains(err.Error(), "not within 20ms") {
		t.Errorf("Poll past its deadline = %v after %d calls, want the last error", err, calls)
	}
}

// The editor answers approvals and questions from its script, then with
// its verdict, and records what it was asked and shown (concurrently).
func TestEditorScript(t *testing.T) {
	ctx := context.Background()
	ed := &Editor{T: t, Approvals: []string{"approve", "reject:too big", "dismiss", "always", "abort"},
		Verdict: editor.Verdict{Decision: editor.DecisionReject}, Answers: [][][]string{{{"a"}, nil}}, NoChat: true}
	want := []editor.Verdict{{Decision: editor.DecisionApprove}, {Decision: editor.DecisionReject, Feedback: "too big"},
		{Decision: editor.DecisionDismissed}, {Decision: editor.DecisionAlwaysAllow}, {Decision: editor.DecisionAbort}, {Decision: editor.DecisionReject}}
	for i, w := range want {
		if v, err := ed.Approve(ctx, editor.Approval{Kind: fmt.Sprint(i)}); err != nil || v != w {
			t.Errorf("approval %d = %+v, %v; want %+v", i, v, err, w)
		}
	}
	if got := ed.Kinds(); !slices.Equal(got, []string{"0", "1", "2", "3", "4", "5"}) {
		t.Errorf("kinds = %q", got)
	}
	ans, err := ed.Ask(ctx, []editor.Question{{Type: editor.SingleSelect}, {Type: editor.FreeText}})
	if err != nil || len(ans) != 2 || !slices.Equal(ans[0].Values, []string{"a"}) || !ans[1].Dismissed {
		t.Errorf("answers = %+v, %v", ans, err)
	}
	if _, err := ed.Ask(ctx, []editor.Question{{Type: editor.FreeText, Prompt: "Reply to the agent"}}); !errors.Is(err, editor.ErrNoTTY) {
		t.Errorf("the chat box was answered %v, want ErrNoTTY", err)
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			ed.ShowMessage(ctx, editor.Info, fmt.Sprint("m", i))
			ed.LogMessage(ctx, editor.Log, "l")
			ed.Notify(ctx, "autarch/x", i)
			p, _ := ed.StartProgress(ctx, fmt.Sprint("p", i), false)
			p.Report(ctx, "r", -1)
			if i%2 == 0 {
				p.End(ctx, "done")
			}
		})
	}
	wg.Wait()
	if len(ed.Messages()) != 8 || len(ed.Logs()) != 8 || len(ed.Notifications()) != 8 || len(ed.OpenProgress()) != 4 {
		t.Errorf("recorded %d messages, %d logs, %d notifications, %d open progress items; want 8, 8, 8, 4",
			len(ed.Messages()), len(ed.Logs()), len(ed.Notifications()), len(ed.OpenProgress()))
	}
}

// A scenario splits into its config, want, repository and steps; the
// repository is committed on main; Script picks steps by name.
func TestScenario(t *testing.T) {
	s := ParseScenario("x.txt", []byte("the story\n-- config.json --\n{\"task\": \"t\"}\n-- repo/a/b.go --\npackage b\n-- 01.json --\n{\"text\": \"one\"}\n-- 02.json --\n{\"text\": \"two\"}\n"))
	var cfg struct{ Task string }
	s.Decode(t, &cfg, nil)
	if cfg.Task != "t" || len(s.Steps) != 2 || len(s.Repo) != 1 || s.Repo[0].Name != "a/b.go" {
		t.Fatalf("scenario = %+v, config %+v", s, cfg)
	}
	dir := s.NewRepo(t)
	if got := strings.TrimSpace(Git(t, dir, "log", "--format=%s %an", "main")); got != "initial User" {
		t.Errorf("log = %q", got)
	}
	if got := strings.TrimSpace(Git(t, dir, "show", "HEAD:a/b.go")); got != "package b" {
		t.Errorf("a/b.go = %q", got)
	}
	if n := len(s.Script(t, "02", "").Steps); n != 1 {
		t.Errorf("steps from 02: %d, want 1", n)
	}
}
