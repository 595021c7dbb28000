package workspace

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
)

// TestVerdictStoreRecords: the store's records are read back exactly (a
// clean and a blocked verdict, a long reason), and a store whose records
// are damaged anywhere (cut short, a length that overflows or runs past
// the end, a reason over maxReason) gives no verdict at all.
func TestVerdictStoreRecords(t *testing.T) {
	g := DefaultGate()
	fp := g.gateFingerprint()
	clean := Stamp{dev: 1, ino: 2, size: 3, mtime: 4, ctime: 5}
	blocked := Stamp{dev: 1, ino: 9, size: 30, mtime: 40, ctime: 50}
	long := Stamp{dev: 7, ino: 7, size: 7, mtime: 7, ctime: 7}
	longReason := string(bytes.Repeat([]byte("r"), 300))
	// The whole store as a gate saves it.
	saved := t.TempDir()
	g.PersistVerdicts(saved)
	for st, reason := range map[Stamp]string{clean: "", blocked: "File contains sensitive content (x)", long: longReason} {
		g.rememberVerdict(st, reason)
	}
	if err := g.SaveVerdicts(); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(filepath.Join(saved, verdictFile))
	if err != nil {
		t.Fatal(err)
	}
	head := append([]byte(verdictMagic), fp[:]...)
	stamp := good[len(head) : len(head)+stampBytes] // the first record's
	with := func(tail ...[]byte) []byte { return bytes.Join(append([][]byte{good}, tail...), nil) }
	for _, tc := range []struct {
		name string
		data []byte
		want map[Stamp]string
	}{
		{"whole", good, map[Stamp]string{clean: "", blocked: "File contains sensitive content (x)", long: longReason}},
		{"cut in a stamp", good[:len(head)+20], nil},
		{"cut in a reason", good[:len(good)-1], nil},
		{"cut before a length", with(stamp), nil},
		{"length overflows", with(stamp, bytes.Repeat([]byte{0xff}, 11)), nil},
		{"reason over the limit", with(stamp, binary.AppendUvarint(nil, maxReason+1), bytes.Repeat([]byte("x"), maxReason+1)), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			state := t.TempDir()
			if err := os.WriteFile(filepath.Join(state, verdictFile), tc.data, 0o600); err != nil {
				t.Fatal(err)
			}
			g := DefaultGate()
			g.PersistVerdicts(state)
			for _, st := range []Stamp{clean, blocked, long} {
				reason, isBlocked, known := g.KnownVerdict("main.go", st)
				want, wantKnown := tc.want[st]
				if known != wantKnown || reason != want || isBlocked != (want != "") {
					t.Errorf("%v: (%q, %v, known %v), want (%q, known %v)", st, reason, isBlocked, known, want, wantKnown)
				}
			}
		})
	}
}
