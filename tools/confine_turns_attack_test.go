package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autarch-dev/autarch/internal/testkit"
	"github.com/autarch-dev/autarch/tools"
)

// TestCommandsOfATreeTakeTurns: a sub-agent's session (made from its
// parent's Config, as agent/subagent.go makes it) and its parent run their
// commands one after another in their tree. A command's masks are decided on
// the host and made by path when its sandbox starts; a command of the other
// session running meanwhile could move a secret's folder in between
// (redteam 01: two test sub-agents dispatched at once read a masked key).
// Here the first command waits up to 10 s for the second to run (longer than
// a loaded machine takes to start it): with turns, the second runs only after
// the first ended.
func TestCommandsOfATreeTakeTurns(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	top := filepath.Join(t.TempDir(), "repo")
	writeFile(t, filepath.Join(top, "main.go"), "package main\n")
	writeFile(t, filepath.Join(top, "conf", "id.txt"), "token = ghp_"+"aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5\n")
	commitAll(t, top)
	reg, err := tools.ForRole("pulsing", tools.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	parent, err := tools.NewSession(tools.SessionConfig{Root: top, Role: "pulsing", Mode: tools.ModeYolo})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { parent.Close() })
	child, err := tools.NewSession(parent.Config())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { child.Close() })
	e := tools.NewEngine(reg, nil, slog.New(slog.DiscardHandler))
	shell := func(s *tools.Session, command string) string {
		raw, _ := json.Marshal(map[string]any{"command": command, "reason": "test"})
		res, err := e.Call(context.Background(), s, "shell", raw)
		if err != nil {
			return "error: " + err.Error()
		}
		return res.Output
	}
	first := make(chan string, 1)
	go func() {
		first <- shell(parent, `touch a_started; for i in $(seq 100); do [ -e b_ran ] && break; sleep 0.1; done; touch a_done; cat conf/id.txt`)
	}()
	if err := testkit.Poll(time.Minute, 5*time.Millisecond, func() error {
		if _, err := os.Stat(filepath.Join(top, "a_started")); err != nil {
			return errors.New("the first command did not start")
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	second := shell(child, `touch b_ran; if [ -e a_done ]; then echo after; else echo during; fi; cat conf/id.txt`)
	out := <-first
	if !strings.Contains(second, "after") {
		t.Errorf("the sub-agent's command ran while its parent's ran in the same tree: %s", second)
	}
	for _, o := range []string{out, second} {
		if strings.Contains(o, "ghp_") {
			t.Errorf("a command read the masked key: %s", o)
		}
	}
}
