package tools

import (
	"context"
	"testing"
)

// TestContextValues: a context carries a ToolContext and a HookContext side
// by side, each read back as set, and the zero value where none was set.
func TestContextValues(t *testing.T) {
	ctx := context.Background()
	if tc, hc := ToolContextFrom(ctx), HookContextFrom(ctx); tc.JobID != "" || hc.Agent != "" {
		t.Fatalf("empty context carries %+v, %+v", tc, hc)
	}
	ctx = WithToolContext(ctx, ToolContext{JobID: "job-1", Mode: "genius"})
	ctx = WithHookContext(ctx, HookContext{Agent: "coder", Workflow: "wf-1"})
	if tc := ToolContextFrom(ctx); tc.JobID != "job-1" || tc.Mode != "genius" {
		t.Errorf("ToolContextFrom = %+v, want job-1 in genius mode", tc)
	}
	if hc := HookContextFrom(ctx); hc.Agent != "coder" || hc.Workflow != "wf-1" {
		t.Errorf("HookContextFrom = %+v, want coder in wf-1", hc)
	}
	ctx = WithToolContext(ctx, ToolContext{JobID: "job-2"})
	if tc, hc := ToolContextFrom(ctx), HookContextFrom(ctx); tc.JobID != "job-2" || hc.Agent != "coder" {
		t.Errorf("after a second ToolContext: %+v, %+v; want job-2 and the hook context kept", tc, hc)
	}
}
