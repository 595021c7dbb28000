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
	record := func(st Stamp, reason string) []byte {
		var rec [stampBytes + binary.MaxVarintLen64]byte
		binary.LittleEndian.PutUint64(rec[0:], st.dev)
		binary.LittleEndian.PutUint64(rec[8:], st.ino)
		binary.LittleEndian.PutUint64(rec[16:], uint64(st.size))
		binary.LittleEndian.PutUint64(rec[24:], uint64(st.mtime))
		binary.LittleEndian.PutUint64(rec[32:], uint64(st.ctime))
		k := binary.PutUvarint(rec[stampBytes:], uint64(len(reason)))
		return append(rec[:stampBytes+k:stampBytes+k], reason...)
	}
	head := append([]byte(verdictMagic), fp[:]...)
	good := bytes.Join([][]byte{head, record(clean, ""), record(blocked, "File contains sensitive content (x)"), record(long, longReason)}, nil)
	for _, tc := range []struct {
		name string
		data []byte
		want map[Stamp]string
	}{
		{"whole", good, map[Stamp]string{clean: "", blocked: "File contains sensitive content (x)", long: longReason}},
		{"cut in a stamp", good[:len(head)+20], nil},
		{"cut in a reason", good[:len(good)-1], nil},
		{"cut before a length", append(append([]byte{}, good...), record(clean, "")[:stampBytes]...), nil},
		{"length overflows", append(append([]byte{}, good...), append(record(clean, "")[:stampBytes], bytes.Repeat([]byte{0xff}, 11)...)...), nil},
		{"reason over the limit", append(append([]byte{}, head...), record(clean, string(bytes.Repeat([]byte("x"), maxReason+1)))...), nil},
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
