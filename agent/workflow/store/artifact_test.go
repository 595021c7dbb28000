package store

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestPulseArtifacts: the data model's initiatingMessageId (the first
// kickoff message, kept when the pulse is resumed) and diffArtifactId (the
// diff stored with the checkpoint, in the same transaction, retrievable).
func TestPulseArtifacts(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	w := newWorkflow(t, s, "artifacts")
	p := Pulse{WorkflowID: w.ID, PlannedID: "pulse-1"}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.AddPulse(ctx, &p))
	kickoff := Message{WorkflowID: w.ID, Stage: "pulsing", PulseID: p.ID, Role: "user", Content: "Implement pulse pulse-1"}
	must(s.AddMessage(ctx, &kickoff))
	must(s.StartPulse(ctx, p.ID, PulseStart{}))
	must(s.SetInitiatingMessage(ctx, p.ID, kickoff.ID))
	must(s.SetInitiatingMessage(ctx, p.ID, kickoff.ID+7)) // a resumed run's kickoff
	bad := []struct {
		name  string
		pulse string
		id    int64
		want  string
	}{
		{"unknown pulse", "pulse-nope", 1, "not found"},
		{"no message", p.ID, 0, "not a stored message"},
	}
	for _, b := range bad {
		if err := s.SetInitiatingMessage(ctx, b.pulse, b.id); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%s: %v, want %q", b.name, err, b.want)
		}
	}
	// A failed pulse without a diff names no artifact; its resumed run's
	// checkpoint does.
	must(s.FinishPulse(ctx, p.ID, PulseEnd{Status: PulseFailed, FailureReason: "x"}))
	if got, _ := s.Pulse(ctx, p.ID); got.DiffArtifactID != "" {
		t.Fatalf("artifact %q without a diff", got.DiffArtifactID)
	}
	must(s.StartPulse(ctx, p.ID, PulseStart{}))
	patch := "diff --git a/a.go b/a.go\n+package a\n"
	must(s.FinishPulse(ctx, p.ID, PulseEnd{Status: PulseSucceeded, Summary: "feat: a", CheckpointCommit: "c0ffee", DiffPatch: patch}))
	got, err := s.Pulse(ctx, p.ID)
	must(err)
	if got.InitiatingMessageID != kickoff.ID {
		t.Errorf("initiating message %d, want the first kickoff %d", got.InitiatingMessageID, kickoff.ID)
	}
	a, err := s.Artifact(ctx, got.DiffArtifactID)
	must(err)
	if a.Kind != ArtifactDiff || a.Content != patch || a.PulseID != p.ID || a.WorkflowID != w.ID || !a.CreatedAt.Equal(fixed) {
		t.Errorf("artifact = %+v", a)
	}
	if _, err := s.Artifact(ctx, "artifact-nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing artifact: %v", err)
	}
	// Artifacts go with their workflow.
	must(s.DeleteWorkflow(ctx, w.ID))
	if _, err := s.Artifact(ctx, a.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("artifact of a deleted workflow: %v", err)
	}
}
