package fleet

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A run's durable state is saved under the lease of the claim that holds
// it: after a takeover, the dead worker's late save is refused by the
// record's revision check, and the takeover fetches the state saved
// before the lease expired, checked against its record.
func TestStateSaveIsFencedByTheLease(t *testing.T) {
	ctx := context.Background()
	f := openFleet(t, startNATS(t), time.Second)
	r := submit(t, f, Spec{Kind: Workflow, Repo: "/tmp/r.git", Task: "Add Sub"})
	dir := t.TempDir()
	file := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	fetch := func(run Run) string {
		t.Helper()
		out := filepath.Join(dir, "fetched")
		ok, err := f.FetchState(ctx, run, out)
		if err != nil || !ok {
			t.Fatalf("FetchState = %v, %v", ok, err)
		}
		b, _ := os.ReadFile(out)
		return string(b)
	}
	dead, taken := claimThenTakeOver(t, f, func(dead *Claim) {
		if ok, err := f.FetchState(ctx, dead.Run, filepath.Join(dir, "none")); ok || err != nil {
			t.Fatalf("a first claim has state: %v, %v", ok, err)
		}
		if err := dead.SaveState(ctx, file("a", "after pulse 1"), 1); err != nil {
			t.Fatal(err)
		}
	})
	if taken.Run.Attempts != 2 || taken.Run.Saved == nil || taken.Run.Saved.Attempt != 1 || taken.Run.Saved.Commits != 1 {
		t.Fatalf("the takeover's record = %+v, state %+v", taken.Run, taken.Run.Saved)
	}
	// w1's late save, after the takeover: refused, and it changes nothing.
	if err := dead.SaveState(ctx, file("late", "late, from a lost lease"), 2); !errors.Is(err, ErrLeaseLost) {
		t.Fatalf("a late save with a lost lease = %v, want ErrLeaseLost", err)
	}
	if got := fetch(taken.Run); got != "after pulse 1" {
		t.Fatalf("the takeover fetched %q", got)
	}
	now, err := f.Get(ctx, r.ID)
	if err != nil || now.Saved == nil || *now.Saved != *taken.Run.Saved {
		t.Fatalf("after the late save the record points at %+v (%v), want %+v", now.Saved, err, taken.Run.Saved)
	}
	// The holder's saves go on; each supersedes the last.
	if err := taken.SaveState(ctx, file("b", "after pulse 2"), 2); err != nil {
		t.Fatal(err)
	}
	if got := fetch(taken.Run); got != "after pulse 2" {
		t.Fatalf("after the holder's save the state is %q", got)
	}
	// A state that is not what its record says is refused.
	bad := taken.Run
	ref := *bad.Saved
	ref.Digest = "00" + ref.Digest[2:]
	bad.Saved = &ref
	if _, err := f.FetchState(ctx, bad, filepath.Join(dir, "bad")); !errors.Is(err, ErrStateInvalid) {
		t.Errorf("a state whose digest differs from its record's = %v, want ErrStateInvalid", err)
	}
}
