package agent_test

import (
	"log/slog"
	"testing"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/internal/testkit"
	"github.com/autarch-dev/autarch/tools"
)

// mainGoDir is a workspace holding main.go.
func mainGoDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, map[string]string{"main.go": "package main\n"})
	return dir
}

// roleTools is role's tool engine (with hooks, nil for none) and a yolo
// session over root for it, closed with the test.
func roleTools(t *testing.T, role, root string, workflow bool, hooks *tools.Hooks) (*tools.Engine, *tools.Session) {
	t.Helper()
	reg, err := agent.Registry(role, tools.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	sess, err := tools.NewSession(tools.SessionConfig{Root: root, Role: role, Mode: tools.ModeYolo, Workflow: workflow})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	return tools.NewEngine(reg, hooks, slog.New(slog.DiscardHandler)), sess
}
