package workspace

import "testing"

// TestReadsOnceKeepsStampVerdictsOnly: a gate told its process reads each
// file once decides as any gate does, remembers the verdicts by file
// version (and persists them), and keeps none by content hash.
func TestReadsOnceKeepsStampVerdictsOnly(t *testing.T) {
	root, _, state, files := verdictTree(t)
	g := DefaultGate()
	g.PersistVerdicts(state)
	g.ReadsOnce()
	for name, body := range files {
		data, st, err := root.ReadFileStamp(name, MaxGrepFileSize)
		if err != nil || st == (Stamp{}) {
			t.Fatalf("%s: %v (stamp %v)", name, err, st)
		}
		wantBlocked := name == "leaky.txt"
		if _, blocked := g.FileBlockedStamp(name, data, st); blocked != wantBlocked {
			t.Errorf("%s: blocked %v, want %v", name, blocked, wantBlocked)
		}
		if _, blocked := g.ContentBlocked([]byte(body)); blocked != wantBlocked {
			t.Errorf("%s: content blocked %v, want %v", name, blocked, wantBlocked)
		}
		if _, blocked, known := g.KnownVerdict(name, st); !known || blocked != wantBlocked {
			t.Errorf("%s: verdict by version known %v blocked %v, want known, blocked %v", name, known, blocked, wantBlocked)
		}
	}
	if g.verdicts != nil && len(g.verdicts.m) > 0 {
		t.Errorf("the gate keeps %d verdicts by content hash", len(g.verdicts.m))
	}
	if err := g.SaveVerdicts(); err != nil {
		t.Fatal(err)
	}
	next := DefaultGate()
	next.PersistVerdicts(state)
	for name := range files {
		_, st, _ := root.ReadFileStamp(name, MaxGrepFileSize)
		if _, blocked, known := next.KnownVerdict(name, st); !known || blocked != (name == "leaky.txt") {
			t.Errorf("%s: the next gate knows %v (blocked %v)", name, known, blocked)
		}
	}
}
