package workspace

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"path"
	"runtime"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/autarch-dev/autarch/workspace/textsearch"
)

// Blocked is the replacement for a line that carries a secret.
const Blocked = "[blocked]"

// DefaultSensitivePaths are the path globs (doublestar, matched against the
// whole relative path and the base name) of files whose content is never
// revealed. A backup or swap copy of a sensitive name (key.pem.bak,
// .env~, .id_rsa.swp, #.env#) is as sensitive as the name (backupSuffixes).
var DefaultSensitivePaths = []string{
	// Environment files: .env.local, .env-prod, .env_backup, env.local, prod.env.
	".env", ".env.*", ".env-*", ".env_*", "*.env", ".envrc", "env.local",
	// Keys, certificates with keys, key stores and password databases.
	"*.pem", "*.key", "*.p12", "*.pfx", "*.p8", "*.jks", "*.keystore", "*.ppk", "*.kdbx", "*.kdb", "*.keychain", "*.keychain-db",
	"*private*.asc", "*secret*.asc", "secring.*",
	"id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*", "id_xmss*",
	// Credential files of tools.
	".npmrc", ".pypirc", ".netrc", "_netrc", ".pgpass", ".git-credentials", ".dockercfg", ".htpasswd", ".vault-token",
	".terraformrc", "terraform.rc", ".s3cfg", ".boto", ".my.cnf",
	"credentials", "credentials.json", "credentials.yml", "credentials.yaml", "credentials.toml",
	"*.secret", "*.secrets",
	// secret(s).<data format>: a secret.go or secrets.py is code.
	"secret.json", "secret.yaml", "secret.yml", "secret.toml", "secret.ini", "secret.txt", "secret.env", "secret.properties", "secret.xml", "secret.conf", "secret.cfg",
	"secrets.json", "secrets.yaml", "secrets.yml", "secrets.toml", "secrets.ini", "secrets.txt", "secrets.env", "secrets.properties", "secrets.xml", "secrets.conf", "secrets.cfg",
	// Shell and REPL histories: commands typed with tokens in them.
	".*_history",
	"kubeconfig", ".kube/config", ".aws/credentials", ".docker/config.json", ".ssh/*", ".config/gh/hosts.yml", ".gem/credentials", ".cargo/credentials", ".cargo/credentials.toml",
	"service-account*.json", "*.tfstate", "*.tfvars",
}

// backupSuffixes are the endings editors and people give copies of a file.
var backupSuffixes = []string{"~", ".bak", ".backup", ".bkp", ".old", ".orig", ".save", ".sav", ".swp", ".swo", ".swx", ".tmp", ".copy"}

// Gate decides what content may be revealed to the model or a user: one
// decision per file (FileBlocked), used by every tool that reveals file
// content, and one per line (RedactLines) for output that is not a file.
type Gate struct {
	paths []string
	// names are the patterns without a slash, matched against each path
	// element: exact names by lookup, "x*" and "*x" by prefix and suffix,
	// the rest with path.Match.
	exact              map[string]string
	prefixes, suffixes []string
	names              []namePattern
	// extensions are the "*.ext" patterns (one dot) by extension, looked
	// up instead of tried one by one; prefixFirst marks the first bytes
	// of prefixes, so a name starting otherwise tries none.
	extensions  map[string]string
	prefixFirst [256]bool
	// deep are the patterns with a slash, matched against whole paths,
	// each with the literal text before its first wildcard (a cheap
	// pre-check).
	deep []deepPattern
	// verdicts caches ContentBlocked by content hash.
	verdicts *verdictCache
	// dirs caches dirBlocked by directory path.
	dirMu sync.RWMutex
	dirs  map[string]string
	// stamps caches FileBlockedStamp by file version.
	stampMu sync.RWMutex
	stamps  map[Stamp]string
	// store persists the stamp verdicts (PersistVerdicts); nil keeps them
	// in memory.
	store *verdictStore
	// fingerprint is gateFingerprint's, computed once (the store's load
	// and save both ask for it).
	fingerprintOnce sync.Once
	fingerprint     [32]byte
}

type deepPattern struct {
	pattern, literal string
	// dotElement: the pattern starts with its literal, which starts with
	// a dot, so it (and **/ before it) matches only a path with an
	// element that starts with a dot.
	dotElement bool
}

// namePattern is a name glob with the literal text before its first and
// after its last wildcard, which a name must start and end with before
// path.Match is worth calling.
type namePattern struct {
	pattern, pre, suf string
}

// NewGate makes a gate over the default sensitive paths plus extra globs.
// It rejects malformed globs, naming them.
func NewGate(extra ...string) (*Gate, error) {
	g := &Gate{paths: append([]string(nil), DefaultSensitivePaths...), verdicts: newVerdictCache()}
	for _, p := range extra {
		if !doublestar.ValidatePattern(p) {
			return nil, fmt.Errorf("invalid sensitive path pattern %q: use doublestar glob syntax, e.g. **/*.pem", p)
		}
		g.paths = append(g.paths, p)
	}
	g.exact, g.extensions = map[string]string{}, map[string]string{}
	for _, p := range g.paths {
		wild := strings.ContainsAny(p, "*?[\\{")
		star := strings.Count(p, "*")
		switch {
		case strings.Contains(p, "/"):
			lit := p
			if i := strings.IndexAny(p, "*?[\\{"); i >= 0 {
				lit = p[:i]
			}
			g.deep = append(g.deep, deepPattern{pattern: p, literal: lit, dotElement: strings.HasPrefix(lit, ".")})
		case !wild:
			g.exact[p] = p
		case star == 1 && strings.HasSuffix(p, "*") && !strings.ContainsAny(p, "?[\\{"):
			g.prefixes = append(g.prefixes, p)
			if len(p) > 1 {
				g.prefixFirst[p[0]] = true
			} else {
				g.prefixFirst = [256]bool{}
				for c := range g.prefixFirst {
					g.prefixFirst[c] = true
				}
			}
		case star == 1 && strings.HasPrefix(p, "*") && !strings.ContainsAny(p, "?[\\{"):
			if ext := p[1:]; strings.LastIndexByte(ext, '.') == 0 {
				if _, dup := g.extensions[ext]; !dup {
					g.extensions[ext] = p
				}
				continue
			}
			g.suffixes = append(g.suffixes, p)
		default:
			pre, suf := p, p
			if i := strings.IndexAny(p, "*?[\\"); i >= 0 {
				pre = p[:i]
			}
			if i := strings.LastIndexAny(p, "*?]"); i >= 0 {
				suf = p[i+1:]
			}
			g.names = append(g.names, namePattern{pattern: p, pre: pre, suf: suf})
		}
	}
	return g, nil
}

// DefaultGate is the gate with only the default rules.
func DefaultGate() *Gate {
	g, _ := NewGate()
	return g
}

// PathBlocked reports whether a file's path marks it as sensitive: a
// pattern without a slash matches the file's name or any directory name in
// its path; one with a slash matches the path or a suffix of it. Backup
// and swap copies of a sensitive name are sensitive.
func (g *Gate) PathBlocked(rel string) (reason string, blocked bool) {
	dir, base := "", rel
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		dir, base = rel[:i], rel[i+1:]
	}
	if reason, blocked := g.dirBlocked(dir); blocked {
		return reason, true
	}
	if p, ok := g.formsMatch(base); ok {
		return fmt.Sprintf("File matches sensitive path pattern %q", p), true
	}
	if len(g.deep) == 0 {
		return "", false
	}
	prefix := strings.TrimSuffix(rel, base)
	for name := range nameForms(base) {
		full := rel
		if name != base {
			full = prefix + name
		}
		dot := strings.HasPrefix(full, ".") || strings.Contains(full, "/.")
		for _, d := range g.deep {
			if d.dotElement && !dot || !strings.Contains(full, d.literal) {
				continue
			}
			if m, _ := doublestar.Match(d.pattern, full); m {
				return fmt.Sprintf("File matches sensitive path pattern %q", d.pattern), true
			}
			if m, _ := doublestar.Match("**/"+d.pattern, full); m {
				return fmt.Sprintf("File matches sensitive path pattern %q", d.pattern), true
			}
		}
	}
	return "", false
}

// formsMatch matches a path element, and its backup forms, against the
// name patterns.
func (g *Gate) formsMatch(part string) (string, bool) {
	for name := range nameForms(part) {
		if p, ok := g.nameMatch(name); ok {
			return p, true
		}
	}
	return "", false
}

// maxDirVerdicts bounds the directory cache; it is emptied when full.
const maxDirVerdicts = 1 << 16

// dirBlocked reports whether a directory path has a sensitive element.
// Every file of a directory asks the same question, so the answers are
// cached per gate (a walk of 10k files checks a few hundred directories).
func (g *Gate) dirBlocked(dir string) (string, bool) {
	if dir == "" || dir == "." {
		return "", false
	}
	g.dirMu.RLock()
	reason, ok := g.dirs[dir]
	g.dirMu.RUnlock()
	if ok {
		return reason, reason != ""
	}
	parent, last := "", dir
	if i := strings.LastIndexByte(dir, '/'); i >= 0 {
		parent, last = dir[:i], dir[i+1:]
	}
	reason, blocked := g.dirBlocked(parent)
	if !blocked {
		if p, ok := g.formsMatch(last); ok {
			reason = fmt.Sprintf("File matches sensitive path pattern %q", p)
		}
	}
	g.dirMu.Lock()
	if g.dirs == nil || len(g.dirs) >= maxDirVerdicts {
		g.dirs = map[string]string{}
	}
	g.dirs[dir] = reason
	g.dirMu.Unlock()
	return reason, reason != ""
}

// nameMatch matches one path element against the name patterns.
func (g *Gate) nameMatch(part string) (string, bool) {
	if p, ok := g.exact[part]; ok {
		return p, true
	}
	if part != "" && g.prefixFirst[part[0]] {
		for _, p := range g.prefixes {
			if strings.HasPrefix(part, p[:len(p)-1]) {
				return p, true
			}
		}
	}
	if i := strings.LastIndexByte(part, '.'); i >= 0 && len(g.extensions) > 0 {
		if p, ok := g.extensions[part[i:]]; ok {
			return p, true
		}
	}
	for _, p := range g.suffixes {
		if strings.HasSuffix(part, p[1:]) {
			return p, true
		}
	}
	for _, p := range g.names {
		if !strings.HasPrefix(part, p.pre) || !strings.HasSuffix(part, p.suf) {
			continue
		}
		if m, _ := path.Match(p.pattern, part); m {
			return p.pattern, true
		}
	}
	return "", false
}

// nameForms yields a path element and the names it is a backup or swap
// copy of: key.pem.bak → key.pem, .id_rsa.swp → id_rsa, #.env# → .env.
func nameForms(name string) func(yield func(string) bool) {
	return func(yield func(string) bool) {
		if !yield(name) || !maybeBackup(name) {
			return
		}
		for range 4 { // key.pem.bak.old: a few layers at most
			stripped := name
			if len(name) > 2 && name[0] == '#' && name[len(name)-1] == '#' {
				stripped = name[1 : len(name)-1]
			}
			swap := false
			for _, s := range backupSuffixes {
				if len(stripped) > len(s) && strings.HasSuffix(stripped, s) {
					stripped = stripped[:len(stripped)-len(s)]
					swap = s == ".swp" || s == ".swo" || s == ".swx"
					break
				}
			}
			if stripped == name {
				return
			}
			if !yield(stripped) {
				return
			}
			if swap && len(stripped) > 1 && stripped[0] == '.' && !yield(stripped[1:]) {
				return
			}
			name = stripped
		}
	}
}

// backupByLast lists backupSuffixes by their last byte.
var backupByLast = func() (t [256][]string) {
	for _, s := range backupSuffixes {
		t[s[len(s)-1]] = append(t[s[len(s)-1]], s)
	}
	return t
}()

// maybeBackup reports whether name may be a backup or swap copy
// (nameForms has more than name to yield): it ends with one of
// backupSuffixes or is #name#.
func maybeBackup(name string) bool {
	if name == "" {
		return false
	}
	last := name[len(name)-1]
	if last == '#' {
		return true
	}
	for _, s := range backupByLast[last] {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	return false
}

// FileBlocked is the gate's one decision about a file, given its relative
// path and content: blocked when its path is sensitive (PathBlocked) or its
// content carries a secret (ContentBlocked). Every tool that reveals file
// content (read_file, grep, search_code, the index and its snippets) skips
// a blocked file whole, so nothing about its lines leaks.
func (g *Gate) FileBlocked(rel string, data []byte) (reason string, blocked bool) {
	if reason, blocked := g.PathBlocked(rel); blocked {
		return reason, true
	}
	return g.ContentBlocked(data)
}

// Prepare readies what the gate's verdicts need, ahead of the first: the
// verdicts persisted by earlier processes (read once) and the secret
// rules (compiled once per process). A one-shot process (autarch tool)
// runs it beside its own start-up, so that neither its search nor the
// filtering of its output waits for them on the critical path.
func (g *Gate) Prepare() {
	secretRules()
	if g != nil {
		g.loadVerdicts()
	}
}

// ReadsOnce tells the gate that its process reads each file about once
// (a one-shot CLI call, autarch tool): it keeps no verdicts by content
// hash, only by file version (FileBlockedStamp) and persisted. Hashing
// every file a cold search scans costs more there than the scans of
// copies it spares: the hash costs about a fifth of the keyword pass per
// byte, and copies are about 5% of the bytes a search of the Go module
// cache meets (fewer in GOROOT/src). A server, which meets the same
// content again under new versions (a pulse's fresh worktree), keeps the
// cache. Call it before the gate is used; no verdict changes, only what
// is remembered.
func (g *Gate) ReadsOnce() {
	if g != nil {
		g.verdicts = nil
	}
}

// maxStampVerdicts bounds the stamp cache; it is emptied when full.
const maxStampVerdicts = 1 << 18

// FileBlockedStamp is FileBlocked for content read at a known version of
// the file (ReadWalkedStamp): the verdict is cached by that version, so a
// search that meets the file again costs a map lookup instead of a hash of
// its content. A zero stamp is not cached.
func (g *Gate) FileBlockedStamp(rel string, data []byte, st Stamp) (reason string, blocked bool) {
	if reason, blocked := g.PathBlocked(rel); blocked {
		return reason, true
	}
	return g.ContentBlockedStamp(data, st)
}

// ContentBlockedStamp is FileBlockedStamp for a file whose path the
// caller has just found not sensitive (PathBlocked): the content's
// verdict, cached by the file's version. A walk that checks every path
// as it lists it (grep) asks it of the files it reads.
func (g *Gate) ContentBlockedStamp(data []byte, st Stamp) (reason string, blocked bool) {
	if reason, blocked, known := g.knownContent(st); known {
		return reason, blocked
	}
	reason, blocked = g.ContentBlocked(data)
	if st == (Stamp{}) || g == nil {
		return reason, blocked
	}
	g.stampMu.Lock()
	if g.stamps == nil || len(g.stamps) >= maxStampVerdicts {
		g.stamps = map[Stamp]string{}
	}
	g.stamps[st] = reason
	g.stampMu.Unlock()
	g.rememberVerdict(st, reason)
	return reason, blocked
}

// KnownVerdict is FileBlockedStamp's verdict for a file version when it is
// known without the content: the path is sensitive, or the version was
// decided before (known false: read the content and call FileBlockedStamp).
func (g *Gate) KnownVerdict(rel string, st Stamp) (reason string, blocked, known bool) {
	if reason, blocked := g.PathBlocked(rel); blocked {
		return reason, true, true
	}
	return g.knownContent(st)
}

// knownContent is the content verdict of a file version decided before
// (in this process or, persisted, in an earlier one).
func (g *Gate) knownContent(st Stamp) (reason string, blocked, known bool) {
	if st == (Stamp{}) || g == nil {
		return "", false, false
	}
	g.loadVerdicts()
	g.stampMu.RLock()
	reason, known = g.stamps[st]
	g.stampMu.RUnlock()
	return reason, reason != "", known
}

// ContentBlocked reports whether content carries a secret. One pass of a
// keyword automaton finds the lines a rule could match; only they meet the
// rules' regexes. An archive (tar, tar.gz, tar.bz2, zip, jar, whl…) is
// blocked when an entry is: by its name (PathBlocked) or, within a size
// cap, its content (archiveSecret). Verdicts are cached by content hash, so the files a
// workspace search meets again cost a hash.
func (g *Gate) ContentBlocked(data []byte) (reason string, blocked bool) {
	key, cached := uint64(0), false
	if g != nil && g.verdicts != nil {
		key = g.verdicts.key(data)
		if reason, ok := g.verdicts.get(key); ok {
			return reason, reason != ""
		}
		cached = true
	}
	if name := firstSecret(data); name != "" {
		reason = "File contains sensitive content (" + name + ")"
	} else if g != nil {
		reason = g.archiveSecret(data)
	}
	if cached {
		g.verdicts.put(key, reason)
	}
	return reason, reason != ""
}

// parallelScanSize is the content size from which firstSecret scans
// chunks in parallel.
const parallelScanSize = 1 << 20

// firstSecret names the first secret in data ("" when there is none). A
// large content is cut at line ends into one chunk per CPU, scanned in
// parallel: no keyword spans a line, so each chunk starts afresh, and the
// first chunk's finding is the first in the file.
func firstSecret(data []byte) string {
	chunks := runtime.GOMAXPROCS(0)
	if len(data) < parallelScanSize || chunks < 2 {
		return scanFirst(data)
	}
	names := make([]string, chunks)
	var wg sync.WaitGroup
	for i, start := 0, 0; i < chunks && start < len(data); i++ {
		end := len(data)
		if i < chunks-1 {
			end = min(len(data), start+len(data)/chunks)
			if nl := bytes.IndexByte(data[end:], '\n'); nl >= 0 {
				end += nl + 1
			} else {
				end = len(data)
			}
		}
		wg.Add(1)
		go func(i int, part []byte) {
			defer wg.Done()
			names[i] = scanFirst(part)
		}(i, data[start:end])
		start = end
	}
	wg.Wait()
	for _, n := range names {
		if n != "" {
			return n
		}
	}
	return ""
}

// scanFirst is scanSecrets' first finding.
func scanFirst(data []byte) string {
	name := ""
	scanSecrets(data, func(_, _ int, n string) bool {
		name = n
		return false
	})
	return name
}

// verdictCache maps a content hash to ContentBlocked's reason ("" for
// clean content). The hash is seeded per gate, so content cannot be
// crafted to collide with a clean file's.
type verdictCache struct {
	seed maphash.Seed
	mu   sync.Mutex
	m    map[uint64]string
}

// maxVerdicts bounds the cache; it is emptied when full.
const maxVerdicts = 1 << 18

func newVerdictCache() *verdictCache {
	return &verdictCache{seed: maphash.MakeSeed(), m: map[uint64]string{}}
}

func (c *verdictCache) key(data []byte) uint64 {
	return maphash.Bytes(c.seed, data) ^ uint64(len(data))*0x9e3779b97f4a7c15
}

func (c *verdictCache) get(k uint64) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.m[k]
	return r, ok
}

func (c *verdictCache) put(k uint64, reason string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= maxVerdicts {
		clear(c.m)
	}
	c.m[k] = reason
}

// LineSecret names the kind of secret on a line ("" when there is none).
func LineSecret(line string) string { return scanFirst([]byte(line)) }

// RedactLines replaces every line that carries a secret with [blocked],
// keeping the line structure. A private key is blocked as a range: from
// its BEGIN line to its END line, and also when the BEGIN line is missing
// (tail -n +2 id_rsa): a run of base64 lines shaped like a key body (60–76
// characters), a key body's first line, or the base64 lines before an END
// line are blocked with what follows them up to the END line.
func (g *Gate) RedactLines(text string) string {
	lines := strings.SplitAfter(text, "\n")
	mask := redactMask(text, lines)
	if mask == nil {
		return text
	}
	var b strings.Builder
	b.Grow(len(text))
	for i, l := range lines {
		if !mask[i] {
			b.WriteString(l)
			continue
		}
		body := strings.TrimRight(l, "\r\n")
		b.WriteString(Blocked)
		b.WriteString(l[len(body):])
	}
	return b.String()
}

// redactMask marks the lines to block; nil when there are none.
func redactMask(text string, lines []string) []bool {
	var mask []bool
	var keyAt []int // lines that open a private key range
	mark := func(i int) {
		if mask == nil {
			mask = make([]bool, len(lines))
		}
		mask[i] = true
	}
	i, off := 0, 0
	scanSecrets([]byte(text), func(start, _ int, name string) bool {
		for off+len(lines[i]) <= start {
			off += len(lines[i])
			i++
		}
		mark(i)
		if name == "private key" || name == "private key body" || name == "PuTTY private key" {
			keyAt = append(keyAt, i)
		}
		return true
	})
	body := func(i int) string { return strings.TrimRight(lines[i], "\r\n") }
	// Ranges opened by a BEGIN line or a key body's first line: up to the
	// END line, or else to the first line that is no part of a key.
	var nextEnd []int // the first END line at or after each line, or -1
	if len(keyAt) > 0 {
		nextEnd = make([]int, len(lines)+1)
		nextEnd[len(lines)] = -1
		for j := len(lines) - 1; j >= 0; j-- {
			nextEnd[j] = nextEnd[j+1]
			if isKeyEnd(lines[j]) {
				nextEnd[j] = j
			}
		}
	}
	for _, k := range keyAt {
		if strings.Contains(lines[k], "BEGIN") {
			if end := nextEnd[k+1]; end >= 0 {
				for j := k + 1; j <= end; j++ {
					mark(j)
				}
				continue
			}
		}
		for j := k + 1; j < len(lines) && !mask[j]; j++ {
			b := body(j)
			if isKeyEnd(b) {
				mark(j)
				break
			}
			if !isKeyPart(keyField(b)) && !isArmorHeader(b) && strings.TrimSpace(b) != "" {
				break
			}
			mark(j)
		}
	}
	// Runs of key body lines without a BEGIN line.
	for i := 0; i < len(lines); {
		if !isKeyBodyLine(keyField(body(i))) {
			i++
			continue
		}
		j := i + 1
		for j < len(lines) && isKeyBodyLine(keyField(body(j))) {
			j++
		}
		tail := j
		for n := 0; n < 2 && tail < len(lines); n++ {
			// The key's last, shorter line; a PGP armour checksum.
			if f := keyField(body(tail)); len(f) < 60 && isKeyPart(f) {
				tail++
			}
		}
		endFollows := tail < len(lines) && isKeyEnd(body(tail))
		if j-i >= 2 || endFollows || (i > 0 && mask != nil && mask[i-1]) || shannon([]byte(keyField(body(i)))) >= 4.5 {
			for k := i; k < tail; k++ {
				mark(k)
			}
			if endFollows {
				mark(tail)
			}
		}
		i = max(j, tail)
	}
	// END lines: the key lines and armour headers before them.
	for i := range lines {
		if !isKeyEnd(body(i)) {
			continue
		}
		mark(i)
		for k := i - 1; k >= 0; k-- {
			b := body(k)
			if mask[k] || !(isKeyPart(keyField(b)) || isArmorHeader(b) || strings.TrimSpace(b) == "") {
				break
			}
			mark(k)
		}
	}
	return mask
}

// isKeyEnd reports whether a line ends a private key (PEM, OpenSSH, PGP,
// SSH2).
func isKeyEnd(line string) bool {
	i := strings.Index(line, "END ")
	return i >= 4 && strings.HasPrefix(line[i-4:], "----") && strings.Contains(line[i:], "PRIVATE KEY")
}

// isArmorHeader reports whether a line is a PEM or PGP armour header
// (Proc-Type:, DEK-Info:, Version:, Comment:).
func isArmorHeader(line string) bool {
	k, _, ok := strings.Cut(strings.TrimSpace(line), ": ")
	if !ok || k == "" {
		return false
	}
	for _, c := range []byte(k) {
		if !(c == '-' || 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z') {
			return false
		}
	}
	return true
}

// keyField is the part of an output line that may be key body: the line
// without surrounding space and without a prefix such as a line number or
// grep's "file:".
func keyField(line string) string {
	line = strings.TrimSpace(line)
	if i := strings.LastIndexAny(line, " \t:|"); i >= 0 {
		return line[i+1:]
	}
	return line
}

// isBase64Field reports whether s is non-empty base64 text.
func isBase64Field(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '/' || c == '=') {
			return false
		}
	}
	return true
}

// isKeyPart reports whether s may be a line of a key's base64 body: long,
// or short with mixed case, digits or +/= (a key's last line, a PGP
// checksum), not a word such as "after" or "PASS".
func isKeyPart(s string) bool {
	if !isBase64Field(s) {
		return false
	}
	if len(s) >= 40 {
		return true
	}
	upper, lower, other, pad := byteKinds(s)
	return other || pad || upper && lower
}

// isKeyBodyLine reports whether s is shaped like a full line of a key's
// base64 body: 60–76 characters (PEM and PGP wrap at 64, OpenSSH at 70,
// MIME at 76) with upper and lower case letters and digits or +/.
func isKeyBodyLine(s string) bool {
	if len(s) < 60 || len(s) > 76 || !isBase64Field(s) || isPathLike(s) {
		return false
	}
	upper, lower, other, _ := byteKinds(s)
	return upper && lower && other
}

// byteKinds reports which kinds of byte s holds: ASCII upper-case and
// lower-case letters, anything else but '=', and the padding '='.
func byteKinds(s string) (upper, lower, other, pad bool) {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case 'A' <= c && c <= 'Z':
			upper = true
		case 'a' <= c && c <= 'z':
			lower = true
		case c == '=':
			pad = true
		default:
			other = true
		}
	}
	return upper, lower, other, pad
}

// isPathLike reports an absolute path (/tmp/TestX1234/001/jobs/wt), which
// is base64 text too: it starts with a slash, has two more, no '+' and
// no padding. A one-line key body does all that about once in a
// thousand lines; a path in a tool's output (a test's temp folder, a
// module cache) does it always, and every tool result now passes the
// line rules.
func isPathLike(s string) bool {
	return strings.HasPrefix(s, "/") && strings.Count(s, "/") >= 3 && !strings.ContainsAny(s, "+=")
}

// controlBytes marks the bytes that count as control characters.
var controlBytes = func() (t [256]uint8) {
	for c := 0; c < 0x20; c++ {
		switch c {
		case '\t', '\n', '\r', '\f', 0x1b:
		default:
			t[c] = 1
		}
	}
	return t
}()

// controlFinder finds the first control byte (controlBytes) with one
// SIMD pass: text without any is decided without counting.
var controlFinder = func() *textsearch.ByteFinder {
	var set []byte
	for c := range 0x20 {
		if controlBytes[c] == 1 {
			set = append(set, byte(c))
		}
	}
	return textsearch.NewByteFinder(set...)
}()

// binaryPrefix is how much of a file IsBinary looks at.
const binaryPrefix = 8192

// IsBinary reports whether data looks binary: a NUL byte, or more than 10%
// control characters (other than tab, newline, carriage return, form feed,
// escape) in the first 8 KB.
func IsBinary(data []byte) bool {
	if len(data) > binaryPrefix {
		data = data[:binaryPrefix]
	}
	if len(data) == 0 || controlFinder.Index(data) < 0 {
		return false
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return true
	}
	control := 0
	for _, c := range data {
		control += int(controlBytes[c])
	}
	return control*10 > len(data)
}

// Limits from spec/autarch-tools.md's behavioural constants.
const (
	// MaxGrepFileSize is the largest file grep reads.
	MaxGrepFileSize = 10 << 20
	// MaxGrepResults is how many matches one grep call returns.
	MaxGrepResults = 50
	// BinaryThreshold is the share of control characters that makes a file binary.
	BinaryThreshold = 0.10
)
