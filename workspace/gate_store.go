package workspace

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// The gate's content verdicts outlive the process: FileBlockedStamp's
// verdicts (by file version, Stamp) are kept in a file of Autarch's state
// directory, so that every CLI call, new session and sub-agent does not
// pay the first content scan of the files it meets again. The state
// directory is masked in every sandbox, so a command cannot forge a
// verdict; a verdict is only ever for the exact version (device, inode,
// size, modification and change time) that was scanned, and the file
// names the rules and sensitive paths it was decided under (a different
// gate ignores it).

// verdictFile is the name of the verdict store in the state directory.
const verdictFile = "gate-verdicts"

// verdictMagic starts the store; the rules' fingerprint follows.
const verdictMagic = "autarch-gate-verdicts-1\n"

// stampBytes is a Stamp's size on disk.
const stampBytes = 40

// verdictStore is the gate's persisted verdicts.
type verdictStore struct {
	path string
	once sync.Once
	mu   sync.Mutex
	// added are the verdicts decided by this process, to be saved, in
	// the order they were decided. A list, not a map: a search decides a
	// verdict per file it matches, and the stamp cache (Gate.stamps)
	// already answers for the version; the list is made a set only when
	// saved (SaveVerdicts), and only when an earlier store is merged.
	added []stampVerdict
}

// stampVerdict is a content verdict decided for a file version.
type stampVerdict struct {
	st     Stamp
	reason string
}

// gateFingerprint names what a content verdict depends on: the rules, the
// sensitive paths (archive entries are judged by name too) and the format.
func (g *Gate) gateFingerprint() [32]byte {
	g.fingerprintOnce.Do(func() { g.fingerprint = g.computeFingerprint() })
	return g.fingerprint
}

// computeFingerprint is gateFingerprint, computed.
func (g *Gate) computeFingerprint() [32]byte {
	h := sha256.New()
	fmt.Fprintf(h, "%s%q\n", verdictMagic, g.paths)
	for _, set := range [][]ruleSpec{localRules, gitleaksRules} {
		for _, r := range set {
			fmt.Fprintf(h, "%q %q %d %v %v %q %v\n", r.name, r.re, r.group, r.entropy, r.generic, r.keywords, r.allow)
		}
	}
	fmt.Fprintf(h, "%v %v %v\n", gitleaksAllow, gitleaksEntropy, backupSuffixes)
	var sum [32]byte
	h.Sum(sum[:0])
	return sum
}

// PersistVerdicts keeps the gate's content verdicts by file version in dir
// (Autarch's state directory, see VerdictDir): they are read on the first
// verdict asked for and written by SaveVerdicts. A gate without it keeps
// its verdicts in memory only.
func (g *Gate) PersistVerdicts(dir string) {
	if g == nil || dir == "" {
		return
	}
	g.store = &verdictStore{path: filepath.Join(dir, verdictFile)}
}

// loadVerdicts reads the store into the stamp cache once.
func (g *Gate) loadVerdicts() {
	s := g.store
	if s == nil {
		return
	}
	s.once.Do(func() {
		m, err := readVerdicts(s.path, g.gateFingerprint())
		if err != nil || len(m) == 0 {
			return
		}
		g.stampMu.Lock()
		if len(g.stamps) == 0 && len(m) <= maxStampVerdicts {
			g.stamps = m // nothing to merge: the store's map is the cache
			g.stampMu.Unlock()
			return
		}
		if g.stamps == nil {
			g.stamps = make(map[Stamp]string, len(m))
		}
		for st, r := range m {
			if len(g.stamps) >= maxStampVerdicts {
				break
			}
			g.stamps[st] = r
		}
		g.stampMu.Unlock()
	})
}

// rememberVerdict records a verdict decided here for SaveVerdicts.
func (g *Gate) rememberVerdict(st Stamp, reason string) {
	s := g.store
	if s == nil {
		return
	}
	s.mu.Lock()
	if len(s.added) < maxStampVerdicts {
		s.added = append(s.added, stampVerdict{st, reason})
	}
	s.mu.Unlock()
}

// SaveVerdicts writes the verdicts decided since the last save to the
// store, merged with what other processes saved meanwhile (the newest
// kept when the store is full), replacing the file atomically. It does
// nothing for a gate that does not persist its verdicts.
func (g *Gate) SaveVerdicts() error {
	if g == nil || g.store == nil {
		return nil
	}
	s := g.store
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.added) == 0 {
		return nil
	}
	fp := g.gateFingerprint()
	old, err := readVerdicts(s.path, fp)
	if err != nil {
		old = nil // a damaged store is replaced
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return fmt.Errorf("gate verdicts: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(s.path), verdictFile+".tmp-*")
	if err != nil {
		return fmt.Errorf("gate verdicts: %w", err)
	}
	defer os.Remove(tmp.Name())
	w := bufio.NewWriter(tmp)
	w.WriteString(verdictMagic)
	w.Write(fp[:])
	n := 0
	rec := make([]byte, stampBytes+binary.MaxVarintLen64) // one for all records (an array per record escapes)
	put := func(st Stamp, reason string) {
		binary.LittleEndian.PutUint64(rec[0:], st.dev)
		binary.LittleEndian.PutUint64(rec[8:], st.ino)
		binary.LittleEndian.PutUint64(rec[16:], uint64(st.size))
		binary.LittleEndian.PutUint64(rec[24:], uint64(st.mtime))
		binary.LittleEndian.PutUint64(rec[32:], uint64(st.ctime))
		k := binary.PutUvarint(rec[stampBytes:], uint64(len(reason)))
		w.Write(rec[:stampBytes+k])
		w.WriteString(reason)
		n++
	}
	// A version decided twice here (its stamp cache entry emptied
	// meanwhile) is written twice; the later record wins when read.
	for _, v := range s.added {
		put(v.st, v.reason)
	}
	var decided map[Stamp]struct{}
	if len(old) > 0 {
		decided = make(map[Stamp]struct{}, len(s.added))
		for _, v := range s.added {
			decided[v.st] = struct{}{}
		}
	}
	for st, r := range old {
		if n >= maxStampVerdicts {
			break
		}
		if _, ok := decided[st]; !ok {
			put(st, r)
		}
	}
	if err := w.Flush(); err != nil {
		tmp.Close()
		return fmt.Errorf("gate verdicts: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("gate verdicts: %w", err)
	}
	if err := os.Rename(tmp.Name(), s.path); err != nil {
		return fmt.Errorf("gate verdicts: %w", err)
	}
	s.added = s.added[:0]
	return nil
}

// VerdictDir is where the gate keeps its verdicts for a workspace root:
// Autarch's state directory in the repository's git directory (gitDir,
// the common one), else a directory of the user cache named after the
// root ("" when there is none).
func VerdictDir(root, gitDir string) string {
	if gitDir != "" {
		return filepath.Join(gitDir, "autarch")
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return ""
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(cache, "autarch", "gate", fmt.Sprintf("%s-%x", filepath.Base(abs), sum[:6]))
}

// maxReason bounds a stored reason's length.
const maxReason = 4096

// readVerdicts reads a store written under fingerprint fp: none when it
// is missing or was written under other rules.
func readVerdicts(path string, fp [32]byte) (map[Stamp]string, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("gate verdicts: %w", err)
	}
	head := len(verdictMagic) + len(fp)
	if len(data) < head || string(data[:len(verdictMagic)]) != verdictMagic || !bytes.Equal(data[len(verdictMagic):head], fp[:]) {
		return nil, nil
	}
	// Sized for the records the file can hold (each at least stampBytes+1
	// bytes, at most maxStampVerdicts), parsed in place: no copy of a
	// record.
	m := make(map[Stamp]string, min((len(data)-head)/(stampBytes+1), maxStampVerdicts))
	rest := data[head:]
	for len(rest) > 0 {
		if len(rest) < stampBytes {
			return m, fmt.Errorf("gate verdicts: truncated record in %s", path)
		}
		rec := rest[:stampBytes]
		n, k := binary.Uvarint(rest[stampBytes:])
		rest = rest[stampBytes+max(k, 0):]
		if k <= 0 || n > maxReason || n > uint64(len(rest)) {
			return m, fmt.Errorf("gate verdicts: damaged record in %s", path)
		}
		reason := string(rest[:n])
		rest = rest[n:]
		st := Stamp{dev: binary.LittleEndian.Uint64(rec[0:]), ino: binary.LittleEndian.Uint64(rec[8:]),
			size: int64(binary.LittleEndian.Uint64(rec[16:])), mtime: int64(binary.LittleEndian.Uint64(rec[24:])),
			ctime: int64(binary.LittleEndian.Uint64(rec[32:]))}
		if st != (Stamp{}) {
			m[st] = reason
		}
	}
	return m, nil
}
