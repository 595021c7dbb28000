package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/autarch-dev/autarch/langserver"
	"github.com/autarch-dev/autarch/workspace"
)

// symbolAt names a symbol the way models can: the name as written on a
// 1-based line, with an optional column when it occurs more than once.
type symbolAt struct {
	Path   string `json:"path" jsonschema:"File path, relative to the worktree root"`
	Line   int    `json:"line" jsonschema:"1-based line on which the symbol is written"`
	Symbol string `json:"symbol" jsonschema:"The symbol's name exactly as written on that line (e.g. NewServer, Config.Load → Load)"`
	Column int    `json:"column,omitempty" jsonschema:"Optional 1-based column of the symbol on the line, when the name occurs there more than once"`
}

// lspLocation is one place in the worktree a language server pointed to.
type lspLocation struct {
	FilePath string `json:"file_path"`
	Line     int    `json:"line"`
	Column   int    `json:"column"`
	Snippet  string `json:"snippet"`
}

// maxSnippet bounds a location's snippet (its line, trimmed).
const maxSnippet = 200

// langServers is the session's pool of language servers: the configured
// shared one, else the session's own (made on first use, shut down by
// Close; nil once the session is closed).
func (s *Session) langServers() *langserver.Pool {
	if s.cfg.LangServers != nil {
		return s.cfg.LangServers.pool
	}
	s.lspOnce.Do(func() { s.lspOwn = langserver.NewPool(langserver.Options{}) })
	return s.lspOwn // nil after Close
}

// langServerList are the servers the session's tools ask: the run's
// (with the repository's language_servers), else those Autarch knows.
func (s *Session) langServerList() []langserver.Server {
	if s.cfg.LangServers != nil {
		return s.cfg.LangServers.servers
	}
	return langserver.Known()
}

// closeLangServers shuts down the session's own servers.
func (s *Session) closeLangServers() {
	s.lspOnce.Do(func() {}) // after Close, no call makes a pool either
	if s.lspOwn != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		s.lspOwn.Close(ctx)
	}
}

// lspStarter starts a server inside the session's sandbox: the worktree
// read-only (servers write nothing there; a server lives on between calls,
// so a process the project's code starts in it, whatever Confine missed,
// must not change the tree beside the gates and the checkpoint: redteam
// s11 02), the repository, protected and secret files confined as for
// commands, the toolchains and module caches read-only, the repository's
// own caches read-only (a server downloads nothing, and the folder every
// later command reads must be no channel out of a server: redteam s12
// 02), the server's pinning environment (langserver.Launch), and never
// the network. Its masks are those of its start: a later command's
// decision that masks more stops it (stopStaleServers).
func (s *Session) lspStarter() langserver.Starter {
	return func(ctx context.Context, dir string, argv, env []string) (*exec.Cmd, error) {
		sb, err := s.commandSandbox(ctx)
		if err != nil {
			return nil, err
		}
		spec, err := s.sandboxSpec(ctx, "exec "+shellWords(argv), 0)
		if err != nil {
			return nil, err
		}
		spec.Network = false
		spec.ReadOnly = append(spec.ReadOnly, spec.Dir)
		if spec.OwnCaches != "" {
			spec.ReadOnly = append(spec.ReadOnly, spec.OwnCaches)
			spec.BuildCache = serverBuildCache(spec.OwnCaches)
		}
		spec.Env = append(spec.Env, env...)
		if pool := s.langServers(); pool != nil {
			s.sharedMaskState().servers.started(pool, spec.Masked)
		}
		return sb.Command(ctx, spec)
	}
}

// serverBuildCache is the Go build cache of the language servers of a
// repository whose own caches are in own: go refuses a read-only one
// (gopls's go list builds cgo packages), and the commands' (in own) is
// read-only to servers, so servers have one of their own beside it,
// which no command sees (it is in Autarch's state folder of the
// repository, or in the user's cache directory) and which is read over
// the user's build cache as the commands' is.
func serverBuildCache(own string) string {
	return filepath.Join(own+"-langservers", "go-build")
}

// serverMasks are the masks every running language server of a tree
// started with (a server's sandbox keeps them for its life), as the files
// they hid, and the pools that started servers there.
type serverMasks struct {
	mu    sync.Mutex
	ids   map[string]maskID // by absolute path
	pools map[*langserver.Pool]bool
}

// maskID is the file a mask hid when it was made: a mask is bound onto
// that file, so another file in its place (renamed over it, written
// after it was deleted) is seen; a path missing then is not masked.
type maskID struct {
	dev, ino uint64
	present  bool
}

func maskIDs(masked []string) map[string]maskID {
	ids := make(map[string]maskID, len(masked))
	for _, p := range masked {
		var id maskID
		if fi, err := os.Lstat(p); err == nil {
			if st, ok := fi.Sys().(*syscall.Stat_t); ok {
				id = maskID{dev: uint64(st.Dev), ino: st.Ino, present: true}
			}
		}
		ids[p] = id
	}
	return ids
}

// started records the masks of a server pool starts.
func (m *serverMasks) started(pool *langserver.Pool, masked []string) {
	ids := maskIDs(masked)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.pools == nil {
		m.pools, m.ids = map[*langserver.Pool]bool{}, ids
	} else {
		for p, id := range m.ids {
			if ids[p] != id {
				delete(m.ids, p) // not hidden from every server
			}
		}
	}
	m.pools[pool] = true
}

// running reports whether servers started with these masks may run.
func (m *serverMasks) running() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.pools) > 0
}

// stale returns the pools whose servers must stop because masked hides a
// file one of them may see (and forgets them); nil when none. all says
// masked is a command's whole set (a path missing from it is no longer
// masked), not the secret masks alone.
func (m *serverMasks) stale(masked []string, all bool) []*langserver.Pool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.pools) == 0 {
		return nil
	}
	ids := maskIDs(masked)
	stale := false
	for p, id := range ids {
		if old, ok := m.ids[p]; id.present && (!ok || old != id) {
			stale = true
			break
		}
	}
	if !stale && all {
		for p := range m.ids {
			if _, ok := ids[p]; !ok {
				delete(m.ids, p) // no longer masked: if it comes back, it is new
			}
		}
	}
	if !stale {
		return nil
	}
	pools := make([]*langserver.Pool, 0, len(m.pools))
	for p := range m.pools {
		pools = append(pools, p)
	}
	m.pools, m.ids = nil, nil
	return pools
}

// stopStaleServers stops the tree's language servers when a command's
// masks hide a file their sandboxes do not (a secret written after they
// started): the next call starts them again with the masks of then
// (redteam s12 02).
func (s *Session) stopStaleServers(ctx context.Context, masked []string) {
	for _, pool := range s.sharedMaskState().servers.stale(masked, true) {
		pool.StopRoot(ctx, s.root.Dir())
	}
}

// lspFreshMasks decides the secret masks before a request to a running
// server, and stops the tree's servers when they hide a file the
// servers' sandboxes do not: a secret written after they started is
// never read by one to answer (a hover showing its value).
func (s *Session) lspFreshMasks(ctx context.Context) error {
	servers := &s.sharedMaskState().servers
	if !servers.running() {
		return nil
	}
	masked, err := s.maskedFiles(nil)
	if err != nil {
		return err
	}
	for _, pool := range servers.stale(masked, false) {
		pool.StopRoot(ctx, s.root.Dir())
	}
	return nil
}

// shellWords quotes words for bash -c.
func shellWords(words []string) string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = shellQuote(w)
	}
	return strings.Join(out, " ")
}

// langClient is the client of the server for a worktree file; ok=false:
// res says why there is none (no server for the language, not installed).
func (s *Session) langClient(rel string) (*langserver.Client, Result, bool) {
	servers := s.langServerList()
	srv, ok := langserver.ForFile(servers, rel)
	if !ok {
		return nil, opError(langserver.NoServerMessage(servers, rel)), false
	}
	if _, err := srv.Path(); err != nil {
		return nil, opError(err.Error()), false
	}
	pool := s.langServers()
	if pool == nil {
		return nil, opError("the session has ended: no language server is started for it"), false
	}
	return pool.Client(s.root.Dir(), srv), Result{}, true
}

// lspSync tells the server the current content of rel and of every file
// the session wrote that it serves, before a request.
func (s *Session) lspSync(ctx context.Context, c *langserver.Client, rels ...string) error {
	for _, rel := range append(s.FilesWritten(), rels...) {
		if srv, ok := langserver.ForFile([]langserver.Server{c.Server()}, rel); !ok || srv.Name != c.Server().Name {
			continue
		}
		data, err := s.root.ReadFile(rel)
		if err != nil {
			continue // deleted or unreadable: the server reads the disk
		}
		if err := c.Sync(ctx, s.lspStarter(), s.root.Abs(rel), data); err != nil {
			return err
		}
	}
	return nil
}

// lspCall syncs the files and sends one request; a Go error is returned
// only for a cancelled call, the rest is the result to give the model.
func (s *Session) lspCall(ctx context.Context, c *langserver.Client, rel, method string, params any) (json.RawMessage, Result, bool, error) {
	err := s.lspFreshMasks(ctx)
	if err == nil {
		err = c.Check()
	}
	if err == nil {
		err = s.lspSync(ctx, c, rel)
	}
	var raw json.RawMessage
	if err == nil {
		err = c.Call(ctx, s.lspStarter(), method, params, &raw)
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, Result{}, false, ctx.Err()
		}
		return nil, lspError(c, err), false, nil
	}
	return raw, Result{}, true, nil
}

// lspError is the model's answer for a server that failed.
func lspError(c *langserver.Client, err error) Result {
	var (
		refused *langserver.RefusedError
		missing *langserver.NotInstalledError
	)
	if errors.As(err, &refused) || errors.As(err, &missing) {
		return opError(err.Error())
	}
	var se *langserver.ServerError
	if errors.As(err, &se) {
		return opError(fmt.Sprintf("%s could not answer: %s; check the path, line and symbol, or use grep", se.Server, se.Msg))
	}
	return opError(fmt.Sprintf("the language server is not available: %v; retry once, or use grep and read_file instead", err))
}

// symbolPosition finds the symbol on its line; ok=false: res says why not.
func (s *Session) symbolPosition(p symbolAt) (rel string, pos protocol.Position, res Result, ok bool) {
	rel, res, ok = s.resolve(p.Path)
	if !ok {
		return "", pos, res, false
	}
	text, res, ok := s.readText(rel, p.Path)
	if !ok {
		return "", pos, res, false
	}
	lines := strings.Split(text, "\n")
	if p.Line < 1 || p.Line > len(lines) {
		return "", pos, opError(fmt.Sprintf("line %d is outside %s, which has %d lines", p.Line, p.Path, len(lines))), false
	}
	line := strings.TrimSuffix(lines[p.Line-1], "\r")
	at := -1
	if p.Column > 0 {
		at = byteOfRune(line, p.Column-1)
		if p.Symbol != "" && !strings.HasPrefix(line[at:], p.Symbol) {
			// The column may point inside the name: the occurrence covering it.
			for _, i := range wordIndexes(line, p.Symbol) {
				if i <= at && at < i+len(p.Symbol) {
					at = i
				}
			}
		}
	} else if idx := wordIndexes(line, p.Symbol); len(idx) > 0 {
		at = idx[0]
	}
	if at < 0 || p.Symbol == "" && p.Column <= 0 {
		return "", pos, opError(fmt.Sprintf("%q is not written on line %d of %s, which reads: %q; give the line where the name appears (read_file shows line numbers)",
			p.Symbol, p.Line, p.Path, clip(strings.TrimSpace(line), maxSnippet))), false
	}
	return rel, protocol.Position{Line: uint32(p.Line - 1), Character: uint32(langserver.UTF16Column(line, at))}, Result{}, true
}

// wordIndexes are the byte offsets of name in line as a whole identifier
// (a substring of a longer one does not count); if there is none, of any
// occurrence (an operator, a name with punctuation).
func wordIndexes(line, name string) []int {
	if name == "" {
		return nil
	}
	var whole, any []int
	for from := 0; from <= len(line)-len(name); {
		i := strings.Index(line[from:], name)
		if i < 0 {
			break
		}
		i += from
		any = append(any, i)
		before, _ := utf8.DecodeLastRuneInString(line[:i])
		after, _ := utf8.DecodeRuneInString(line[i+len(name):])
		if !isIdent(before) && !isIdent(after) {
			whole = append(whole, i)
		}
		from = i + 1
	}
	if len(whole) > 0 {
		return whole
	}
	return any
}

func isIdent(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// byteOfRune is the byte offset of the n-th rune of line (clamped).
func byteOfRune(line string, n int) int {
	i := 0
	for b := range line {
		if i == n {
			return b
		}
		i++
	}
	return len(line)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// worktreeRel is the worktree path of a server's URI; ok=false for a
// place outside the worktree (the standard library, the module cache),
// which is not shown.
func (s *Session) worktreeRel(u uri.URI) (string, bool) {
	rel, err := filepath.Rel(s.root.Dir(), u.FsPath())
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") || filepath.IsAbs(rel) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// locationsOf turns server locations into the model's: worktree paths,
// 1-based lines and columns, the line as snippet (none from a file the
// secret gate blocks); outside counts those not shown.
func (s *Session) locationsOf(locs []protocol.Location) (out []lspLocation, outside int) {
	out = []lspLocation{}
	lines := map[string][]string{}
	seen := map[lspLocation]bool{}
	for _, l := range locs {
		rel, ok := s.worktreeRel(l.URI)
		if !ok {
			outside++
			continue
		}
		text, read := lines[rel]
		if !read {
			if data, _, err := s.gate.ReadShown(s.root, rel, workspace.MaxReadSize); err == nil {
				text = strings.Split(string(data), "\n")
			}
			lines[rel] = text
		}
		loc := lspLocation{FilePath: rel, Line: int(l.Range.Start.Line) + 1, Column: int(l.Range.Start.Character) + 1}
		if int(l.Range.Start.Line) < len(text) {
			line := strings.TrimSuffix(text[l.Range.Start.Line], "\r")
			loc.Column = utf8.RuneCountInString(line[:langserver.ByteColumn(line, int(l.Range.Start.Character))]) + 1
			loc.Snippet = clip(strings.TrimSpace(line), maxSnippet)
		}
		if !seen[loc] {
			seen[loc] = true
			out = append(out, loc)
		}
	}
	return out, outside
}

// locationsResult is the answer of a locations request.
func (s *Session) locationsResult(key string, locs []protocol.Location, none string) Result {
	out, outside := s.locationsOf(locs)
	res := map[string]any{key: out, "count": len(out)}
	if outside > 0 {
		res["outside_worktree"] = outside
		res["note"] = fmt.Sprintf("%d more outside the worktree (standard library, dependencies) not shown", outside)
	}
	if len(out) == 0 && outside == 0 {
		res["note"] = none
	}
	return jsonResult(res, false)
}

// textDocPos are the parameters of a position request.
func (s *Session) textDocPos(rel string, pos protocol.Position) protocol.TextDocumentPositionParams {
	return protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri.File(s.root.Abs(rel))}, Position: pos}
}

// protocolURI is the file URI of an absolute path.
func protocolURI(abs string) uri.URI { return uri.File(abs) }

// symbolReply is a server's answer about a symbol.
type symbolReply struct {
	c   *langserver.Client
	rel string
	raw json.RawMessage
}

// symbolRequest finds the symbol and its file's server and sends method
// with the parameters params makes of the symbol's position (nil: the
// position itself). ok=false: res is the answer (err for a cancelled call).
func (s *Session) symbolRequest(ctx context.Context, p symbolAt, method string, params func(protocol.TextDocumentPositionParams) any) (symbolReply, Result, bool, error) {
	rel, pos, res, ok := s.symbolPosition(p)
	if !ok {
		return symbolReply{}, res, false, nil
	}
	c, res, ok := s.langClient(rel)
	if !ok {
		return symbolReply{}, res, false, nil
	}
	var args any = s.textDocPos(rel, pos)
	if params != nil {
		args = params(s.textDocPos(rel, pos))
	}
	raw, res, ok, err := s.lspCall(ctx, c, rel, method, args)
	return symbolReply{c, rel, raw}, res, ok, err
}
