package testkit

import (
	"encoding/json"
	"testing"
)

// ToolArgs is a tool call's JSON arguments as the model sends them: args
// with a reason ("test") when they carry none.
func ToolArgs(t testing.TB, args map[string]any) json.RawMessage {
	t.Helper()
	if _, ok := args["reason"]; !ok {
		args["reason"] = "test"
	}
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatalf("tool arguments %v: %v", args, err)
	}
	return raw
}
