package git

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"context"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Commands an agent runs never see the repository's real object store:
// a committed secret would come out of it whatever the work tree masks
// (git show HEAD:.env | rev, git log -p, cat-file --batch-all-objects, a
// zlib reader over .git/objects). SandboxObjects keeps, on the host, a
// filtered copy of the store that the sandbox binds read-only over the
// real one: packs of every object reachable from the repository's refs,
// its worktrees' detached HEADs and their indexes, except the blobs the
// secret gate blocks — by any path they appear under in any commit or
// index, and by content. Blocked blobs are simply missing, so no command
// can print them, however it transforms the output.
//
// Layout, under <common>/autarch/sandbox-objects/rules-<hash of the
// filter's rules>:
//
//   - lock: an flock held while the store is checked or updated, by every
//     session and process of the repository;
//   - state.json: the rules the store was filtered with, its generation,
//     the tips and index versions it covers, the withheld blobs and why;
//   - gen-<n>/: an object directory (pack/*.pack, *.idx). A full build
//     writes a new generation in a temporary directory renamed into place;
//     an incremental update adds a pack to the current generation (git
//     writes the .idx last, and a pack without it is ignored). state.json
//     is replaced by rename. A killed update leaves at worst an unused pack
//     or temporary directory, removed by the next full build.
//
// Updates are incremental: the objects reachable from the new tips and not
// from the old ones (rev-list --not), and the paths the new commits give
// blobs (log --raw over the same range). When a blob already in the store
// appears under a blocked path in a new commit (a renamed secret), the
// generation is rebuilt without it.

// BlobFilter decides which blobs commands may not read (workspace.Gate).
type BlobFilter interface {
	// PathBlocked reports whether a file at path rel is secret by name.
	PathBlocked(rel string) (reason string, blocked bool)
	// ContentBlocked reports whether content carries a secret.
	ContentBlocked(data []byte) (reason string, blocked bool)
}

// sandboxObjectsVersion changes when the store's layout or filtering
// changes: a store of another version is rebuilt.
const sandboxObjectsVersion = 1

// maxStorePacks is how many packs a generation may collect from
// incremental updates before the next update rebuilds it.
const maxStorePacks = 64

// maxBatchBytes bounds the blob content one cat-file process returns (its
// output is held in memory).
const maxBatchBytes = 64 << 20

// SandboxObjects is a repository's filtered object store (see above). It
// is safe for concurrent use.
type SandboxObjects struct {
	repo    *Repo
	filter  BlobFilter
	rules   string
	maxScan int64
	indexes *indexCache // the index files read (objstore_index.go)
}

// SandboxObjects returns the repository's filtered object store for
// filter. rules identifies the filter's rules (a store built with other
// rules is rebuilt); blobs larger than maxScan are withheld only by their
// paths, their content is not scanned.
func (r *Repo) SandboxObjects(filter BlobFilter, rules string, maxScan int64) *SandboxObjects {
	return &SandboxObjects{repo: r, filter: filter, rules: rules, maxScan: maxScan, indexes: &indexCache{}}
}

// Dir is the store's directory.
func (s *SandboxObjects) Dir() string { return filepath.Join(s.StoresDir(), rulesDir(s.rules)) }

// StoresDir holds the stores of every set of rules: sessions with other
// rules (another sensitive_paths, another build of Autarch) keep their
// own store instead of rebuilding one in turn.
func (s *SandboxObjects) StoresDir() string {
	return filepath.Join(s.repo.StateDir(), "sandbox-objects")
}

// rulesDir names the store of a set of rules.
func rulesDir(rules string) string {
	sum := sha256.Sum256([]byte(rules))
	return "rules-" + hex.EncodeToString(sum[:8])
}

// staleStore is how long a store of other rules is kept unused.
const staleStore = 7 * 24 * time.Hour

// removeStaleStores removes the stores of other rules that no update
// touched for staleStore (their lock file's time).
func (s *SandboxObjects) removeStaleStores() {
	entries, _ := os.ReadDir(s.StoresDir())
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() || !strings.HasPrefix(name, "rules-") || name == rulesDir(s.rules) {
			continue
		}
		fi, err := os.Stat(filepath.Join(s.StoresDir(), name, "lock"))
		if err == nil && time.Since(fi.ModTime()) < staleStore {
			continue
		}
		_ = os.RemoveAll(filepath.Join(s.StoresDir(), name))
	}
}

// RealObjects is the object directory the store stands in for.
func (s *SandboxObjects) RealObjects() string { return filepath.Join(s.repo.commonDir, "objects") }

// storeState is state.json.
type storeState struct {
	Version int      `json:"version"`
	Rules   string   `json:"rules"`
	Gen     string   `json:"gen"`
	Tips    []string `json:"tips"`
	Index   []string `json:"index"`
	// IndexKeys are the keys of the index files' entries the store
	// covers, by file (objstore_index.go); none when git listed them.
	IndexKeys map[string]string `json:"indexKeys,omitempty"`
	Packs     int               `json:"packs"`
	// Replace is the directory of replace refs for the withheld blobs.
	Replace string `json:"replace"`
	// Withheld maps a withheld blob to why.
	Withheld map[string]string `json:"withheld"`
}

// View is what commands see of the repository's objects.
type View struct {
	// Objects is the filtered object directory, shown in place of
	// RealObjects.
	Objects string
	// ReplaceRefs holds a replace ref for every withheld blob, pointing at
	// a placeholder that says it is withheld; shown in place of
	// ReplaceRefsDir. Diffs, stats, blame and rename detection over a
	// withheld blob then work with the placeholder's text instead of
	// failing; git --no-replace-objects finds the blob missing.
	ReplaceRefs string
}

// ReplaceRefsDir is the repository's refs/replace directory, which the
// store's ReplaceRefs stand in for. Update creates it (empty) when
// missing, so that it can be bound over.
func (s *SandboxObjects) ReplaceRefsDir() string {
	return filepath.Join(s.repo.commonDir, "refs", "replace")
}

// Update brings the store up to date with the repository and returns what
// commands see. It costs one for-each-ref when nothing changed.
func (s *SandboxObjects) Update(ctx context.Context) (View, error) {
	dir := s.Dir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return View{}, fmt.Errorf("sandbox objects: %w", err)
	}
	if err := os.MkdirAll(s.ReplaceRefsDir(), 0o755); err != nil {
		return View{}, fmt.Errorf("sandbox objects: %w", err)
	}
	unlock, err := lockFile(filepath.Join(dir, "lock"))
	if err != nil {
		return View{}, fmt.Errorf("sandbox objects: %w", err)
	}
	defer unlock()
	now := time.Now()
	_ = os.Chtimes(filepath.Join(dir, "lock"), now, now) // in use: not stale
	if err := ctx.Err(); err != nil {
		return View{}, err
	}
	st := s.load()
	tips, err := s.tips(ctx)
	if err != nil {
		return View{}, err
	}
	index := s.indexStamps()
	if st.Gen != "" && slices.Equal(tips, st.Tips) && slices.Equal(index, st.Index) {
		return s.view(st), nil
	}
	indexes, parsed := s.readIndexes()
	if !parsed {
		indexes = nil // git lists them
	}
	if st.Gen != "" && slices.Equal(tips, st.Tips) && parsed && st.IndexKeys != nil && maps.Equal(indexKeys(indexes), st.IndexKeys) {
		// Only the indexes' stat data changed (git refreshed them): what
		// they hold is covered.
		st.Index = index
		return s.view(st), s.save(st)
	}
	var withheld map[string]string
	if st.Gen != "" && st.Packs < maxStorePacks {
		next, full, err := s.add(ctx, st, tips, index, indexes)
		if err != nil {
			return View{}, err
		}
		if !full {
			return s.view(next), nil
		}
		withheld = next.Withheld // with the packed blobs now withheld
	}
	next, err := s.rebuild(ctx, tips, index, indexes, withheld)
	if err != nil {
		return View{}, err
	}
	return s.view(next), nil
}

func (s *SandboxObjects) view(st storeState) View {
	return View{Objects: filepath.Join(s.Dir(), st.Gen), ReplaceRefs: filepath.Join(s.Dir(), st.Replace)}
}

// Withheld returns why the store withholds a blob; false when it does not
// (or the store was never built).
func (s *SandboxObjects) Withheld(oid string) (string, bool) {
	st := s.load()
	reason, ok := st.Withheld[oid]
	return reason, ok
}

// load reads state.json; a missing, unreadable or outdated one is the
// zero state (a full build follows).
func (s *SandboxObjects) load() storeState {
	var st storeState
	data, err := os.ReadFile(filepath.Join(s.Dir(), "state.json"))
	if err != nil || json.Unmarshal(data, &st) != nil || st.Version != sandboxObjectsVersion || st.Rules != s.rules ||
		!validGen(st.Gen) || !isDir(filepath.Join(s.Dir(), st.Gen, "pack")) ||
		!strings.HasPrefix(st.Replace, "replace-") || !isDir(filepath.Join(s.Dir(), st.Replace)) {
		return storeState{}
	}
	return st
}

func validGen(name string) bool {
	rest, ok := strings.CutPrefix(name, "gen-")
	return ok && rest != "" && !strings.ContainsAny(rest, "/.")
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// save replaces state.json atomically.
func (s *SandboxObjects) save(st storeState) error {
	st.Version, st.Rules = sandboxObjectsVersion, s.rules
	data, err := json.Marshal(st)
	if err != nil {
		return fmt.Errorf("sandbox objects: %w", err)
	}
	return writeAtomic(filepath.Join(s.Dir(), "state.json"), data)
}

// tips are the object ids the store covers: every ref's target and every
// worktree's detached HEAD, sorted.
func (s *SandboxObjects) tips(ctx context.Context) ([]string, error) {
	out, err := s.repo.Git(ctx, s.repo.commonDir, nil, "for-each-ref", "--format=%(objectname)")
	if err != nil {
		return nil, fmt.Errorf("sandbox objects: listing refs: %w", err)
	}
	tips := strings.Fields(string(out))
	heads := []string{filepath.Join(s.repo.commonDir, "HEAD")}
	if m, _ := filepath.Glob(filepath.Join(s.repo.commonDir, "worktrees", "*", "HEAD")); m != nil {
		heads = append(heads, m...)
	}
	for _, h := range heads {
		data, err := os.ReadFile(h)
		if err != nil {
			continue
		}
		// git worktree add writes the null id as the new worktree's HEAD
		// until its branch is set: it names no object, so it is no tip.
		if oid := strings.TrimSpace(string(data)); isOID(oid) && strings.Trim(oid, "0") != "" {
			tips = append(tips, oid)
		}
	}
	slices.Sort(tips)
	return slices.Compact(tips), nil
}

// indexStamps identify the versions of the worktrees' index files.
func (s *SandboxObjects) indexStamps() []string {
	files := []string{filepath.Join(s.repo.commonDir, "index")}
	if m, _ := filepath.Glob(filepath.Join(s.repo.commonDir, "worktrees", "*", "index")); m != nil {
		files = append(files, m...)
	}
	var out []string
	for _, f := range files {
		if fi, err := os.Stat(f); err == nil {
			out = append(out, fmt.Sprintf("%s %d %d", f, fi.Size(), fi.ModTime().UnixNano()))
		}
	}
	slices.Sort(out)
	return out
}

func isOID(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// add packs what is new since st into st's generation. full reports that
// the generation must be rebuilt instead (a packed blob became secret):
// then the state returned carries the blobs to withhold.
func (s *SandboxObjects) add(ctx context.Context, st storeState, tips, index []string, indexes map[string]indexSnapshot) (storeState, bool, error) {
	// The indexes list every object they hold, also those the old tips
	// reach (rev-list cannot exclude them): what the generation packs
	// already is neither read nor packed again (issue 35: each new
	// worktree's index re-read and re-packed a 23k-file repository).
	have, err := packedObjects(filepath.Join(s.Dir(), st.Gen), oidLen(tips))
	if err != nil {
		have = nil // read and pack them again: slower, not wrong
	}
	sel, err := s.selectObjects(ctx, tips, st.Tips, st.Withheld, have, indexObjectsOf(indexes, st.IndexKeys))
	if err != nil {
		return st, false, err
	}
	if sel.repack {
		st.Withheld = sel.withheld
		return st, true, nil
	}
	packed, err := s.pack(ctx, filepath.Join(s.Dir(), st.Gen), sel.keep)
	if err != nil {
		return st, false, err
	}
	if len(sel.withheld) != len(st.Withheld) {
		prev := st.Replace
		if st.Replace, err = s.writeReplaceRefs(filepath.Join(s.Dir(), st.Gen), sel.withheld); err != nil {
			return st, false, err
		}
		defer s.removeOld(st.Gen, "", st.Replace, prev)
	}
	st.Tips, st.Index, st.Withheld = tips, index, sel.withheld
	st.IndexKeys = nil
	if indexes != nil {
		st.IndexKeys = indexKeys(indexes)
	}
	if packed {
		st.Packs++
	}
	return st, false, s.save(st)
}

// rebuild writes a new generation from scratch, withholding at least
// the blobs in withheld, and removes the older ones but the previous (a
// running command may still read it).
func (s *SandboxObjects) rebuild(ctx context.Context, tips, index []string, indexes map[string]indexSnapshot, withheld map[string]string) (storeState, error) {
	sel, err := s.selectObjects(ctx, tips, nil, withheld, nil, indexObjectsOf(indexes, nil))
	if err != nil {
		return storeState{}, err
	}
	tmp, err := os.MkdirTemp(s.Dir(), "tmp-")
	if err != nil {
		return storeState{}, fmt.Errorf("sandbox objects: %w", err)
	}
	defer os.RemoveAll(tmp)
	if err := os.Chmod(tmp, 0o755); err != nil {
		return storeState{}, fmt.Errorf("sandbox objects: %w", err)
	}
	packed, err := s.pack(ctx, tmp, sel.keep)
	if err != nil {
		return storeState{}, err
	}
	gen := "gen-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	if err := os.Rename(tmp, filepath.Join(s.Dir(), gen)); err != nil {
		return storeState{}, fmt.Errorf("sandbox objects: %w", err)
	}
	replace, err := s.writeReplaceRefs(filepath.Join(s.Dir(), gen), sel.withheld)
	if err != nil {
		return storeState{}, err
	}
	prev := s.load()
	st := storeState{Gen: gen, Tips: tips, Index: index, Withheld: sel.withheld, Replace: replace}
	if indexes != nil {
		st.IndexKeys = indexKeys(indexes)
	}
	if packed {
		st.Packs = 1
	}
	if err := s.save(st); err != nil {
		return storeState{}, err
	}
	s.removeOld(gen, prev.Gen, replace, prev.Replace)
	s.removeStaleStores()
	return st, nil
}

// removeOld removes the generations, replace-ref directories and
// temporary directories other than those named (the current ones and the
// previous, which a running command may still read).
func (s *SandboxObjects) removeOld(keep ...string) {
	entries, _ := os.ReadDir(s.Dir())
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() || slices.Contains(keep, name) {
			continue
		}
		if strings.HasPrefix(name, "gen-") || strings.HasPrefix(name, "tmp-") || strings.HasPrefix(name, "replace-") {
			_ = os.RemoveAll(filepath.Join(s.Dir(), name))
		}
	}
}

// placeholder is what commands read in place of a withheld blob.
const placeholder = "[Autarch: this file's content is withheld from commands: it is a secret file (the secret gate blocks it by name or content). No command can read it, in any commit; ask the user if the task needs it.]\n"

// writeReplaceRefs writes the placeholder blob into the object directory
// gen and a new directory of replace refs, one per withheld blob (plus
// the repository's own loose replace refs), and returns its name.
func (s *SandboxObjects) writeReplaceRefs(gen string, withheld map[string]string) (string, error) {
	name := "replace-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	dir := filepath.Join(s.Dir(), name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("sandbox objects: %w", err)
	}
	own, _ := os.ReadDir(s.ReplaceRefsDir())
	for _, e := range own {
		if _, secret := withheld[e.Name()]; secret || !e.Type().IsRegular() || !isOID(e.Name()) {
			continue
		}
		if data, err := os.ReadFile(filepath.Join(s.ReplaceRefsDir(), e.Name())); err == nil {
			if err := os.WriteFile(filepath.Join(dir, e.Name()), data, 0o644); err != nil {
				return "", fmt.Errorf("sandbox objects: %w", err)
			}
		}
	}
	placeholders := map[int]string{} // by object id length
	for oid := range withheld {
		ph, ok := placeholders[len(oid)]
		if !ok {
			var err error
			if ph, err = writeLooseBlob(gen, []byte(placeholder), len(oid) == 64); err != nil {
				return "", err
			}
			placeholders[len(oid)] = ph
		}
		if err := os.WriteFile(filepath.Join(dir, oid), []byte(ph+"\n"), 0o644); err != nil {
			return "", fmt.Errorf("sandbox objects: %w", err)
		}
	}
	return name, nil
}

// writeLooseBlob writes data as a loose blob into the object directory
// dir and returns its id (SHA-256 in a repository of that format).
func writeLooseBlob(dir string, data []byte, sha256Format bool) (string, error) {
	obj := append([]byte(fmt.Sprintf("blob %d\x00", len(data))), data...)
	var oid string
	if sha256Format {
		sum := sha256.Sum256(obj)
		oid = hex.EncodeToString(sum[:])
	} else {
		sum := sha1.Sum(obj)
		oid = hex.EncodeToString(sum[:])
	}
	path := filepath.Join(dir, oid[:2], oid[2:])
	if _, err := os.Stat(path); err == nil {
		return oid, nil
	}
	var buf bytes.Buffer
	zw := zlib.NewWriter(&buf)
	zw.Write(obj)
	if err := zw.Close(); err != nil {
		return "", fmt.Errorf("sandbox objects: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", fmt.Errorf("sandbox objects: %w", err)
	}
	if err := writeAtomic(path, buf.Bytes()); err != nil {
		return "", err
	}
	return oid, nil
}

// selection is what an update packs.
type selection struct {
	keep     []string          // objects to pack, "<oid> <path>" lines
	withheld map[string]string // every withheld blob, old and new
	repack   bool              // a blob packed before is now withheld
}

// selectObjects lists the objects reachable from tips (and the indexes)
// but not from not, and withholds the secret blobs among them. Objects in
// have are packed already: only their paths are checked (one under a
// blocked path makes the generation be rebuilt without it). indexed, when
// not nil, are the index objects to look at (those of the indexes that
// changed, read by the store); nil lists every index's with git.
func (s *SandboxObjects) selectObjects(ctx context.Context, tips, not []string, withheld map[string]string, have map[string]bool, indexed *[]indexObject) (selection, error) {
	sel := selection{withheld: make(map[string]string, len(withheld))}
	for k, v := range withheld {
		sel.withheld[k] = v
	}
	var revs bytes.Buffer
	for _, t := range tips {
		revs.WriteString(t + "\n")
	}
	for _, t := range not {
		revs.WriteString("^" + t + "\n")
	}
	stdin := revs.Bytes()
	args := []string{"rev-list", "--objects", "--indexed-objects", "--missing=allow-promisor", "--stdin"}
	if indexed != nil {
		args = slices.Delete(args, 2, 3) // the store reads the indexes itself
	}
	out, err := s.repo.Git(ctx, s.repo.commonDir, bytes.NewReader(stdin), args...)
	if err != nil {
		return sel, fmt.Errorf("sandbox objects: listing objects: %w", err)
	}
	var objects []string
	listed := map[string]bool{}
	names := map[string]string{}
	for line := range strings.Lines(string(out)) {
		oid, name, _ := strings.Cut(strings.TrimSuffix(line, "\n"), " ")
		if !isOID(oid) || listed[oid] {
			continue
		}
		if have[oid] {
			if reason, blocked := s.filter.PathBlocked(name); name != "" && blocked {
				sel.withheld[oid] = fmt.Sprintf("%s: %s", name, reason)
				sel.repack = true
			}
			continue
		}
		listed[oid] = true
		objects = append(objects, oid)
		if name != "" {
			names[oid] = name
			if reason, blocked := s.filter.PathBlocked(name); blocked {
				sel.withheld[oid] = fmt.Sprintf("%s: %s", name, reason)
			}
		}
	}
	if indexed != nil {
		s.selectIndexObjects(&sel, *indexed, have, listed, names, &objects)
	}
	// Every path a blob has in the new commits (a blob rev-list names once
	// may appear under several).
	if len(tips) > 0 {
		out, err = s.repo.Git(ctx, s.repo.commonDir, bytes.NewReader(stdin), "log", "--stdin", "--format=", "-z", "--raw",
			"-m", "--root", "--no-renames", "--no-abbrev", "--no-ext-diff", "--no-textconv", "--ignore-submodules")
		if err != nil {
			return sel, fmt.Errorf("sandbox objects: listing paths: %w", err)
		}
		fields := strings.Split(string(out), "\x00")
		for i := 0; i+1 < len(fields); i++ {
			head := strings.TrimLeft(fields[i], "\n")
			if !strings.HasPrefix(head, ":") {
				continue
			}
			f := strings.Fields(head)
			i++ // the path follows its header
			if len(f) != 5 || f[1] == "160000" || !isOID(f[3]) || strings.Trim(f[3], "0") == "" {
				continue
			}
			path := fields[i]
			if _, done := sel.withheld[f[3]]; done {
				continue
			}
			if reason, blocked := s.filter.PathBlocked(path); blocked {
				sel.withheld[f[3]] = fmt.Sprintf("%s: %s", path, reason)
				if !listed[f[3]] {
					sel.repack = true // packed by an earlier update
				}
			}
		}
	}
	if sel.repack {
		return sel, nil
	}
	missing, err := s.scanBlobs(ctx, objects, sel.withheld)
	if err != nil {
		return sel, err
	}
	for _, oid := range objects {
		if _, ok := sel.withheld[oid]; !ok && !missing[oid] {
			// The path helps pack-objects find deltas.
			sel.keep = append(sel.keep, strings.TrimSpace(oid+" "+names[oid]))
		}
	}
	return sel, nil
}

// scanBlobs withholds the blobs among objects whose content the filter
// blocks (those not larger than maxScan), and returns the objects the
// repository does not have (an index may name a blob a partial clone
// lacks: nothing to pack).
func (s *SandboxObjects) scanBlobs(ctx context.Context, objects []string, withheld map[string]string) (map[string]bool, error) {
	missing := map[string]bool{}
	if len(objects) == 0 {
		return missing, nil
	}
	out, err := s.repo.Git(ctx, s.repo.commonDir, strings.NewReader(strings.Join(objects, "\n")+"\n"),
		"cat-file", "--batch-check=%(objectname) %(objecttype) %(objectsize)", "--buffer")
	if err != nil {
		return nil, fmt.Errorf("sandbox objects: reading object types: %w", err)
	}
	type blob struct {
		oid  string
		size int64
	}
	var batch []blob
	var batchSize int64
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		var in strings.Builder
		for _, b := range batch {
			in.WriteString(b.oid + "\n")
		}
		data, err := s.repo.Git(ctx, s.repo.commonDir, strings.NewReader(in.String()), "cat-file", "--batch", "--buffer")
		if err != nil {
			return fmt.Errorf("sandbox objects: reading blobs: %w", err)
		}
		for _, b := range batch {
			// <oid> blob <size>\n<content>\n
			nl := bytes.IndexByte(data, '\n')
			if nl < 0 || int64(len(data)) < int64(nl)+1+b.size+1 {
				return fmt.Errorf("sandbox objects: short cat-file output for %s", b.oid)
			}
			content := data[nl+1 : int64(nl)+1+b.size]
			if reason, blocked := s.filter.ContentBlocked(content); blocked {
				withheld[b.oid] = reason
			}
			data = data[int64(nl)+1+b.size+1:]
		}
		batch, batchSize = batch[:0], 0
		return nil
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 2 && f[1] == "missing" {
			missing[f[0]] = true
			continue
		}
		if len(f) != 3 || f[1] != "blob" {
			continue
		}
		size, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil || size == 0 || size > s.maxScan {
			continue
		}
		if _, done := withheld[f[0]]; done {
			continue
		}
		if batchSize+size > maxBatchBytes {
			if err := flush(); err != nil {
				return nil, err
			}
		}
		batch = append(batch, blob{f[0], size})
		batchSize += size
	}
	return missing, flush()
}

// packArgs writes the store's packs (named base-<hash>) fast rather than small (issue 35): no
// delta search (--window=0; deltas an existing pack holds are still
// reused) and light compression. On a repository of 23k loose objects
// the default pack-objects took 32 s of a workflow's first command (load
// ~20); these 14 s, and under 0.5 s (1.1 s) where the objects are packed.
// The store is a private, read-only copy on the host: its size matters
// less than the wait.
func packArgs(base string) []string {
	return []string{"pack-objects", "-q", "--window=0", "--compression=1", base}
}

// pack writes objects as one pack into the object directory dir; false
// when there is nothing to pack.
func (s *SandboxObjects) pack(ctx context.Context, dir string, objects []string) (bool, error) {
	if err := os.MkdirAll(filepath.Join(dir, "pack"), 0o755); err != nil {
		return false, fmt.Errorf("sandbox objects: %w", err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "info"), 0o755); err != nil {
		return false, fmt.Errorf("sandbox objects: %w", err)
	}
	if len(objects) == 0 {
		return false, nil
	}
	in := strings.Join(objects, "\n") + "\n"
	if _, err := s.repo.Git(ctx, s.repo.commonDir, strings.NewReader(in), packArgs(filepath.Join(dir, "pack", "pack"))...); err != nil {
		return false, fmt.Errorf("sandbox objects: writing a pack: %w", err)
	}
	return true, nil
}

// lockFile takes an exclusive flock on path (created if missing), shared
// by every goroutine and process that opens it.
func lockFile(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// writeAtomic replaces path with data: a temporary file renamed over it.
func writeAtomic(path string, data []byte) error {
	var rnd [8]byte
	_, _ = rand.Read(rnd[:])
	tmp := path + ".tmp-" + hex.EncodeToString(rnd[:])
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return fmt.Errorf("sandbox objects: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("sandbox objects: %w", err)
	}
	return nil
}
