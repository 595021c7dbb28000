package tools

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/autarch-dev/autarch/workspace"
)

// Egress is the one secret filter every byte bound for a model or the
// network passes: tool results of every kind (the engine applies it after
// execute, so no tool can skip it), each model request as a last line
// (agent.New wraps the Model), web queries, stored tool calls, logs
// (RedactHandler) and protocol updates.
//
// It applies the gate's line rules (workspace.Gate.RedactLines) and masks
// the secret values Autarch knows wherever they occur: values harvested
// from the files the gate blocks in the workspace (dotenv KEY=VALUE, JSON
// and YAML strings under secret-ish keys, PEM bodies), Autarch's own
// secrets (model API key, NATS credentials) and the credential-like
// variables of the process environment. Each value of at least
// MinSecretValue bytes is masked as it is, reversed, and hex- or
// base64-encoded (at any alignment, standard and URL alphabets), also
// when line breaks were put into it (fold, base64 -w, xxd -p).
//
// The values are never logged nor returned. A nil *Egress filters nothing.
type Egress struct {
	gate *workspace.Gate
	// files are Autarch's own secret files, read again by Refresh (the
	// swarm writes its NATS credentials after a project is opened).
	files []string
	mu    sync.Mutex // serialises AddValues
	set   atomic.Pointer[valueSet]
	// harvested is closed once the values of the workspace's blocked
	// files are in set: the walk that finds them runs while a session
	// starts, and every filtering waits for it (ready).
	harvested chan struct{}
	// lazy, when set, holds the harvest of the roots until the first
	// filtering, so that a whole walk of a root done meanwhile (grep's
	// search) stands in for the harvest's own (see egress_listing.go).
	lazy *lazyHarvest
}

// MinSecretValue is the shortest value masked by value: shorter ones
// would mask ordinary words.
const MinSecretValue = 8

// EgressSources says where an Egress finds the secret values it masks.
type EgressSources struct {
	// Roots are workspace folders whose gate-blocked files (by path) are
	// read for values; .git and node_modules are not walked.
	Roots []string
	// Files are Autarch's own secret files (NATS auth.json): every string
	// value in them is a secret.
	Files []string
	// Environ is the process environment (KEY=VALUE): the values of
	// credential-like names, passwords in URLs and bearer tokens count.
	Environ []string
	// Values are secrets known as they are (the model's API key).
	Values []string
}

// NewEgress makes the filter over gate's line rules (nil: the default
// gate) and the values found in src. Unreadable files are skipped: the
// harvest makes the filter stricter, never fails it.
func NewEgress(ctx context.Context, gate *workspace.Gate, src EgressSources) *Egress {
	return newEgress(ctx, gate, src, false)
}

// newEgress is NewEgress; with lazy, the roots are harvested at the first
// filtering (ready) instead of at once.
func newEgress(ctx context.Context, gate *workspace.Gate, src EgressSources, lazy bool) *Egress {
	if gate == nil {
		gate = workspace.DefaultGate()
	}
	e := &Egress{gate: gate, files: src.Files, harvested: make(chan struct{})}
	harvest := func() {
		defer close(e.harvested)
		var vals []string
		for _, root := range src.Roots {
			if l := e.lazy.listing(root); l != nil {
				vals = append(vals, harvestListed(ctx, gate, root, l)...)
				continue
			}
			e.lazy.walked()
			vals = append(vals, harvestRoot(ctx, gate, root)...)
		}
		e.AddValues(vals...)
	}
	if lazy {
		e.lazy = &lazyHarvest{roots: src.Roots, run: harvest}
	} else {
		go harvest() // the walk of whole workspaces overlaps the session's start and first tool call
	}
	var vals []string
	for _, f := range src.Files {
		if data, err := workspace.ReadSmallFile(f, maxHarvestFile); err == nil {
			vals = append(vals, harvestAll(data)...)
		}
	}
	vals = append(vals, harvestEnv(src.Environ)...)
	vals = append(vals, src.Values...)
	e.AddValues(vals...)
	return e
}

// ready waits until the values harvested from the workspace are masked.
func (e *Egress) ready() {
	e.lazy.start()
	if e.harvested != nil {
		<-e.harvested
	}
}

// DefaultEgressSources are the sources of a session over root: the
// workspace, the main checkout when root is a linked worktree (where the
// user's untracked .env lives), Autarch's NATS credentials in the
// repository's state, and the process environment. commonDir is the
// repository's git directory ("" derives it from root/.git).
func DefaultEgressSources(root, commonDir string) EgressSources {
	src := EgressSources{Roots: []string{root}, Environ: os.Environ()}
	if commonDir == "" {
		if fi, err := os.Lstat(filepath.Join(root, ".git")); err == nil && fi.IsDir() {
			commonDir = filepath.Join(root, ".git")
		} else if _, common, err := workspace.ReadGitFile(root); err == nil {
			commonDir = common
		}
	}
	if commonDir != "" {
		if filepath.Base(commonDir) == ".git" {
			if main := filepath.Dir(commonDir); filepath.Clean(main) != filepath.Clean(root) {
				src.Roots = append(src.Roots, main)
			}
		}
		src.Files = append(src.Files, filepath.Join(commonDir, "autarch", "nats", "auth.json"))
	}
	return src
}

// Refresh reads Autarch's own secret files again and masks the values
// that appeared since (a session sharing a project's filter calls it).
func (e *Egress) Refresh() {
	if e == nil {
		return
	}
	var vals []string
	for _, f := range e.files {
		if data, err := workspace.ReadSmallFile(f, maxHarvestFile); err == nil {
			vals = append(vals, harvestAll(data)...)
		}
	}
	e.AddValues(vals...)
}

// AddValues adds secret values to mask (shorter than MinSecretValue:
// ignored). Filtering already under way keeps the set it started with.
func (e *Egress) AddValues(vals ...string) {
	if e == nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	old := e.set.Load()
	seen := map[string]bool{}
	var all []string
	if old != nil {
		all = append(all, old.values...)
		for _, v := range old.values {
			seen[v] = true
		}
	}
	added := false
	for _, v := range vals {
		v = strings.TrimSpace(v)
		if len(v) < MinSecretValue || seen[v] {
			continue
		}
		seen[v], all, added = true, append(all, v), true
	}
	if !added && old != nil {
		return
	}
	var version uint64
	if old != nil {
		version = old.version + 1
	}
	e.set.Store(newValueSet(all, version))
}

// Values counts the secret values masked (for doctor-like reports; the
// values themselves are never given out).
func (e *Egress) Values() int {
	if e == nil {
		return 0
	}
	e.ready()
	if s := e.set.Load(); s != nil {
		return len(s.values)
	}
	return 0
}

// Version changes whenever the set of values does: a cache of filtered
// text is valid for one version.
func (e *Egress) Version() uint64 {
	if e == nil {
		return 0
	}
	e.ready()
	if s := e.set.Load(); s != nil {
		return s.version
	}
	return 0
}

// Text is s with every known secret value masked and every line the
// gate's rules find a secret on replaced with [blocked].
func (e *Egress) Text(s string) string {
	if e == nil || s == "" {
		return s
	}
	e.ready()
	if set := e.set.Load(); set != nil {
		s = set.mask(s)
	}
	return e.gate.RedactLines(s)
}

// JSON filters a JSON text inside its decoded strings (keys and values),
// keeping it valid JSON with everything else as it was; text that is not
// valid JSON is filtered as text.
func (e *Egress) JSON(raw string) string {
	if e == nil || raw == "" {
		return raw
	}
	if !json.Valid([]byte(raw)) {
		return e.Text(raw)
	}
	return e.validJSON(raw)
}

// validJSON is JSON on text known to be valid JSON.
func (e *Egress) validJSON(raw string) string {
	// One pass over all strings decides whether any needs filtering.
	var all strings.Builder
	eachString(raw, func(_, _ int, s string) {
		all.WriteString(s)
		all.WriteByte('\n')
	})
	if joined := all.String(); e.Text(joined) == joined {
		return raw
	}
	var b strings.Builder
	last := 0
	eachString(raw, func(i, j int, s string) {
		f := e.Text(s)
		if f == s {
			return
		}
		enc, err := json.Marshal(f)
		if err != nil {
			enc = []byte(`"` + workspace.Blocked + `"`)
		}
		b.WriteString(raw[last:i])
		b.Write(enc)
		last = j
	})
	b.WriteString(raw[last:])
	return b.String()
}

// Auto filters s as JSON when it is a JSON object or array, else as text.
func (e *Egress) Auto(s string) string {
	t := strings.TrimSpace(s)
	if e != nil && t != "" && (t[0] == '{' || t[0] == '[') && json.Valid([]byte(t)) {
		return e.validJSON(s)
	}
	return e.Text(s)
}

// Result filters a tool result: a JSON result inside its strings.
func (e *Egress) Result(r Result) Result {
	if e == nil {
		return r
	}
	if r.JSON {
		r.Output = e.JSON(r.Output)
	} else {
		r.Output = e.Text(r.Output)
	}
	return r
}

// Args filters a call's JSON arguments inside their strings.
func (e *Egress) Args(raw json.RawMessage) json.RawMessage {
	if e == nil || len(raw) == 0 {
		return raw
	}
	if f := e.JSON(string(raw)); f != string(raw) {
		return json.RawMessage(f)
	}
	return raw
}

// eachString calls fn with the span [i, j) and the decoded text of every
// string literal of valid JSON, in order.
func eachString(raw string, fn func(i, j int, s string)) {
	for i := 0; i < len(raw); i++ {
		if raw[i] != '"' {
			continue
		}
		j, esc := i+1, false
		for ; j < len(raw); j++ {
			c := raw[j]
			if esc {
				esc = false
				continue
			}
			if c == '\\' {
				esc = true
				continue
			}
			if c == '"' {
				break
			}
		}
		if j >= len(raw) {
			return
		}
		lit := raw[i : j+1]
		s := lit[1 : len(lit)-1]
		if strings.IndexByte(s, '\\') >= 0 {
			s = unescape(s)
		}
		fn(i, j+1, s)
		i = j
	}
}

// unescape decodes the body of a valid JSON string literal.
func unescape(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			if i+4 >= len(s) {
				b.WriteString(s[i-1:])
				return b.String()
			}
			r, err := strconv.ParseUint(s[i+1:i+5], 16, 32)
			if err != nil {
				b.WriteString(s[i-1 : i+5])
				i += 4
				continue
			}
			i += 4
			if utf16.IsSurrogate(rune(r)) && i+6 < len(s) && s[i+1] == '\\' && s[i+2] == 'u' {
				if r2, err := strconv.ParseUint(s[i+3:i+7], 16, 32); err == nil {
					if d := utf16.DecodeRune(rune(r), rune(r2)); d != unicode.ReplacementChar {
						b.WriteRune(d)
						i += 6
						continue
					}
				}
			}
			b.WriteRune(rune(r))
		default: // " \ /
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// mask replaces each occurrence of a needle with [blocked]. Line breaks
// are ignored while matching (a folded value is found), and kept in the
// output.
func (s *valueSet) mask(text string) string {
	if len(s.values) == 0 || len(text) < 8 {
		return text
	}
	hay := []byte(text)
	var cut []int // for each removed byte, the number of bytes kept before it
	if strings.ContainsAny(text, "\r\n") {
		kept := make([]byte, 0, len(hay))
		for rest := text; ; {
			i := strings.IndexByte(rest, '\n')
			line := rest
			if i >= 0 {
				line = rest[:i]
			}
			for j := strings.IndexByte(line, '\r'); j >= 0; j = strings.IndexByte(line, '\r') {
				kept = append(kept, line[:j]...)
				cut = append(cut, len(kept))
				line = line[j+1:]
			}
			kept = append(kept, line...)
			if i < 0 {
				break
			}
			cut = append(cut, len(kept))
			rest = rest[i+1:]
		}
		hay = kept
	}
	spans := s.find(hay)
	if len(spans) == 0 {
		return text
	}
	// orig maps an offset of hay back to text.
	orig := func(j int) int {
		n := 0
		for lo, hi := 0, len(cut); lo < hi; {
			m := (lo + hi) / 2
			if cut[m] <= j {
				lo, n = m+1, m+1
			} else {
				hi = m
			}
		}
		return j + n
	}
	var b strings.Builder
	b.Grow(len(text))
	last := 0
	for _, sp := range spans {
		a, z := orig(sp[0]), orig(sp[1]-1)+1
		b.WriteString(text[last:a])
		b.WriteString(workspace.Blocked)
		for _, c := range []byte(text[a:z]) {
			if c == '\n' || c == '\r' {
				b.WriteByte(c)
			}
		}
		last = z
	}
	b.WriteString(text[last:])
	return b.String()
}

// Harvesting.

// maxHarvestFile bounds a secret file read for values; maxHarvestFiles
// bounds how many are read per root.
const (
	maxHarvestFile  = 1 << 20
	maxHarvestFiles = 500
)

// secretKey matches names (variables, JSON/YAML keys) whose value is a
// credential.
var secretKey = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)KEY|TOKEN|SECRET|PASS|PWD|CREDENTIAL|AUTH|JWT|COOKIE|PRIVATE|SESSION|SIGNATURE|SALT|DSN|CERT`)
})

// harmlessKey are names secretKey matches whose values are no secret.
var harmlessKey = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^(PWD|OLDPWD|GIT_(AUTHOR|COMMITTER)_(NAME|EMAIL|DATE)|XDG_SESSION_(ID|TYPE|CLASS|DESKTOP)|TOKENIZERS_PARALLELISM|KEYTIMEOUT|SSH_AUTH_SOCK|DBUS_SESSION_BUS_ADDRESS|.*_(FILE|PATH|DIR))$`)
})

// urlPassword finds the password of a URL (scheme://user:password@host).
var urlPassword = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^/@\s:]*:([^/@\s]+)@`) })

// bearer finds a token after an authorization scheme.
var bearer = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:bearer|basic|token)\s+([A-Za-z0-9._~+/=-]{8,})`)
})

// queryPassword finds a password in a query string (?password=…).
var queryPassword = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)[?&](?:password|passwd|pwd|token|secret|key)=([^&\s]+)`)
})

// harvestRoot reads the files of root the gate blocks by path.
func harvestRoot(ctx context.Context, gate *workspace.Gate, root string) []string {
	var vals []string
	files := 0
	walkBlocked(ctx, gate, root, root, func(rel string, d fs.DirEntry) bool {
		if files >= maxHarvestFiles {
			return false
		}
		data, err := workspace.ReadSmallFile(filepath.Join(root, filepath.FromSlash(rel)), maxHarvestFile)
		if err != nil {
			return true
		}
		files++
		vals = append(vals, harvestFile(d.Name(), data)...)
		return true
	})
	return vals
}

// walkBlocked calls fn, in lexical order, with each regular file under
// start (inside root, or root itself) that the gate blocks by path (rel:
// its slash path from root), skipping .git and node_modules folders below
// start, until fn returns false or ctx ends.
func walkBlocked(ctx context.Context, gate *workspace.Gate, root, start string, fn func(rel string, d fs.DirEntry) bool) {
	filepath.WalkDir(start, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if ctx.Err() != nil {
			return filepath.SkipAll
		}
		if d.IsDir() {
			if p != start && (d.Name() == ".git" || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, ok := strings.CutPrefix(p, root+string(filepath.Separator))
		if !ok { // root was not clean: WalkDir's paths are
			var err error
			if rel, err = filepath.Rel(root, p); err != nil {
				return nil
			}
		}
		rel = filepath.ToSlash(rel)
		if _, blocked := gate.PathBlocked(rel); !blocked {
			return nil
		}
		if !fn(rel, d) {
			return filepath.SkipAll
		}
		return nil
	})
}

// harvestFile finds the secret values of a blocked file: PEM bodies, JSON
// or YAML strings under secret-ish keys, dotenv and similar KEY=VALUE
// lines (every value under a secret-ish key, and the others that do not
// look like ordinary words), passwords in URLs and tokens after "password".
func harvestFile(name string, data []byte) []string {
	text := string(data)
	vals := harvestPEM(text)
	var doc any
	switch ext := strings.ToLower(filepath.Ext(name)); {
	case json.Valid(data) && json.Unmarshal(data, &doc) == nil:
		return append(vals, harvestTree("", doc)...)
	case (ext == ".yml" || ext == ".yaml" || name == "kubeconfig" || name == "config") && yaml.Unmarshal(data, &doc) == nil:
		if _, ok := doc.(map[string]any); ok {
			return append(vals, harvestTree("", doc)...)
		}
	}
	for line := range strings.SplitSeq(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' || line[0] == ';' || strings.HasPrefix(line, "-----") {
			continue
		}
		vals = append(vals, harvestLine(line)...)
		if i := strings.IndexAny(line, "=:"); i > 0 {
			key := strings.TrimSpace(strings.TrimPrefix(line[:i], "export "))
			val := unquote(strings.TrimSpace(line[i+1:]))
			named := secretName(key) && !harmlessKey().MatchString(key) && !pathLike(val)
			if named || !ordinary(val) {
				vals = append(vals, val)
			}
			continue
		}
		// .netrc and the like: "machine h login u password p".
		prev := ""
		for f := range strings.FieldsSeq(line) {
			if prev != "" && secretName(prev) {
				vals = append(vals, f)
			}
			prev = f
		}
	}
	return vals
}

// harvestLine finds passwords in URLs and query strings and bearer tokens.
func harvestLine(s string) []string {
	var vals []string
	for _, re := range []*regexp.Regexp{urlPassword(), bearer(), queryPassword()} {
		if !mayHarvest(re, s) {
			continue
		}
		for _, m := range re.FindAllStringSubmatch(s, -1) {
			vals = append(vals, m[1])
		}
	}
	return vals
}

// mayHarvest reports whether re (one of harvestLine's) may match s: false
// only when s lacks text every match holds (most lines of a blocked file,
// a PEM body's, hold none, and the regexps cost a pass each). A line with
// a non-ASCII byte always may: under (?i), K and ſ match k and s.
func mayHarvest(re *regexp.Regexp, s string) bool {
	switch re {
	case urlPassword():
		return strings.Contains(s, "://")
	case queryPassword():
		return strings.Contains(s, "=") && strings.ContainsAny(s, "?&")
	case bearer():
		for i := 0; i < len(s); i++ {
			if s[i] >= utf8.RuneSelf {
				return true
			}
		}
		return mentionsScheme(s)
	}
	return true
}

// harvestPEM finds the body lines of PEM blocks.
func harvestPEM(text string) []string {
	var vals []string
	in := false
	for line := range strings.SplitSeq(text, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "-----BEGIN"):
			in = true
		case strings.HasPrefix(line, "-----END"):
			in = false
		case in && !strings.Contains(line, ":"):
			vals = append(vals, line)
		}
	}
	return vals
}

// harvestTree finds the strings under secret-ish keys of a decoded JSON or
// YAML document, and PEM bodies anywhere in it.
func harvestTree(key string, v any) []string {
	var vals []string
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			vals = append(vals, harvestTree(k, x)...)
		}
	case []any:
		for _, x := range v {
			vals = append(vals, harvestTree(key, x)...)
		}
	case string:
		vals = append(vals, harvestPEM(v)...)
		vals = append(vals, harvestLine(v)...)
		if secretName(key) && !harmlessKey().MatchString(key) {
			vals = append(vals, v)
		}
	}
	return vals
}

// harvestAll finds every string of one of Autarch's own secret files
// (JSON: all its strings; else each line).
func harvestAll(data []byte) []string {
	var doc any
	if json.Unmarshal(data, &doc) != nil {
		return strings.Split(string(data), "\n")
	}
	var vals []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		case string:
			vals = append(vals, v)
		}
	}
	walk(doc)
	return vals
}

// harvestEnv finds the secret values of an environment: the values of
// credential-like names that are not paths, passwords in URLs, bearer
// tokens (GIT_CONFIG_PARAMETERS' http.extraHeader).
func harvestEnv(environ []string) []string {
	var vals []string
	for _, kv := range environ {
		name, val, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		vals = append(vals, harvestLine(val)...)
		if secretName(name) && !harmlessKey().MatchString(name) && !pathLike(val) {
			vals = append(vals, val)
		}
	}
	return vals
}

// pathLike reports a value that names a file or socket, not a secret.
func pathLike(v string) bool {
	return strings.HasPrefix(v, "/") || strings.HasPrefix(v, "~") || strings.HasPrefix(v, "./") || strings.Contains(v, "unix:path=")
}

// ordinary reports a value under a name that does not say secret which
// looks like no secret: short, a word in lower case, a number, a path or a
// plain URL.
func ordinary(v string) bool {
	if len(v) < MinSecretValue || pathLike(v) {
		return true
	}
	if strings.Contains(v, "://") && !urlPassword().MatchString(v) {
		return true
	}
	switch v {
	case "true", "false", "production", "development", "localhost":
		return true
	}
	for _, r := range v {
		if !unicode.IsLower(r) && r != '_' && r != '-' && r != '.' {
			return false
		}
	}
	return true
}

// unquote strips a value's quotes, or its trailing comment when unquoted.
func unquote(v string) string {
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') {
		if i := strings.IndexByte(v[1:], v[0]); i >= 0 {
			return v[1 : 1+i]
		}
	}
	if i := strings.Index(v, " #"); i >= 0 {
		v = strings.TrimSpace(v[:i])
	}
	return v
}
