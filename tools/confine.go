package tools

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/autarch-dev/autarch/tools/websearch"
	"github.com/autarch-dev/autarch/workspace"
	"github.com/autarch-dev/autarch/workspace/sandbox"
	"github.com/autarch-dev/autarch/workspace/trust"
)

// Network policies of CommandPolicy.
const (
	// NetworkPreflight gives the network to preflight only (dependency
	// installs); pulses and every other stage run without it.
	NetworkPreflight = "preflight"
	NetworkAlways    = "always"
	NetworkNever     = "never"
)

// CommandPolicy says how the commands an agent runs are confined.
type CommandPolicy struct {
	// Sandbox confines commands; nil detects bubblewrap when the session
	// first runs a command.
	Sandbox sandbox.Sandbox
	// AllowUnsandboxed runs commands unconfined where no sandbox works:
	// the user's explicit opt-in (AUTARCH_ALLOW_UNSANDBOXED=1).
	AllowUnsandboxed bool
	// Network is NetworkPreflight (the default), NetworkAlways or NetworkNever.
	Network string
	// DefaultTimeout bounds a command that names no timeout (0: the
	// shell's 60 seconds); ConfigFile's commands.default_timeout.
	DefaultTimeout time.Duration
	// Env are the variables the user adds to commands' environment
	// (AUTARCH_SANDBOX_ENV, sandbox.env of the user's config file; never
	// the repository's), passed as they are: see sandboxEnvNames.
	Env []string
	// Limits bound each command's processes, memory, file size and CPU
	// time (zero fields: sandbox.DefaultLimits); the user's
	// AUTARCH_SANDBOX_LIMITS only.
	Limits sandbox.Limits
}

// CommandPolicyFromEnv reads the user's choices from the environment:
// AUTARCH_ALLOW_UNSANDBOXED=1, AUTARCH_SANDBOX_NETWORK=preflight|always|never,
// AUTARCH_SANDBOX_ENV=NAME,… (with sandbox.env of the user's config file)
// and AUTARCH_SANDBOX_LIMITS=procs=…,mem=…,fsize=…,cpu=….
func CommandPolicyFromEnv() (CommandPolicy, error) {
	p := CommandPolicy{Network: NetworkPreflight}
	userFile, _ := websearch.UserFile() // no user config dir: no names from it
	env, err := sandboxEnvNames(os.Getenv, userFile)
	if err != nil {
		return p, err
	}
	p.Env = env
	switch v := os.Getenv("AUTARCH_ALLOW_UNSANDBOXED"); v {
	case "", "0", "false":
	case "1", "true":
		p.AllowUnsandboxed = true
	default:
		return p, fmt.Errorf("AUTARCH_ALLOW_UNSANDBOXED=%q: use 1 to run commands unconfined where no sandbox works, or leave it unset", v)
	}
	switch v := os.Getenv("AUTARCH_SANDBOX_NETWORK"); v {
	case "":
	case NetworkPreflight, NetworkAlways, NetworkNever:
		p.Network = v
	default:
		return p, fmt.Errorf("AUTARCH_SANDBOX_NETWORK=%q: use preflight (network for dependency installs only), always or never", v)
	}
	l, err := sandbox.ParseLimits(os.Getenv(sandbox.LimitsEnv))
	p.Limits = l
	return p, err
}

// SelectSandbox picks the sandbox of a policy once for a process: bubblewrap
// when it works, else Unconfined if the user opted in, else an error that
// says what to do.
func SelectSandbox(ctx context.Context, p CommandPolicy) (CommandPolicy, sandbox.Status, error) {
	if p.Sandbox != nil {
		return p, sandbox.Status{Available: p.Sandbox.Confined(), Mechanism: p.Sandbox.Name()}, nil
	}
	sb, st, err := sandbox.Select(ctx, sandbox.Options{Limits: p.Limits}, p.AllowUnsandboxed)
	if err != nil {
		return p, st, fmt.Errorf("%w; install bubblewrap (apt-get install bubblewrap) or opt in to unsandboxed commands with AUTARCH_ALLOW_UNSANDBOXED=1", err)
	}
	p.Sandbox = sb
	return p, st, nil
}

// dependencyDirs are directories of installed dependencies, not the
// user's files: the mask walk skips them (they can hold 100k files).
var dependencyDirs = map[string]bool{"node_modules": true, ".venv": true, "venv": true, "__pycache__": true, ".tox": true, ".gradle": true, ".m2": true}

// maxMaskScan is the largest file whose content is scanned for secrets to
// decide whether commands may read it; larger files are masked only by name.
const maxMaskScan = 4 << 20

// confinement is a session's view of what its commands may touch; masks
// are recomputed from file changes only.
type confinement struct {
	once   sync.Once
	policy CommandPolicy
	err    error

	mu sync.Mutex
	// state is what the mask decisions know: the run's, shared by its
	// sessions in this tree (SessionConfig.Masks), or the session's own.
	state    *MaskState
	ownState bool
	// held counts the gate runs holding the masks (holdMasks); while one
	// does, the masks decided by its first command (heldMasks, valid when
	// heldOK) hold for the others.
	held      int
	heldMasks []string
	heldOK    bool
	walks     int // the decisions made (for tests)

	objects objectsConfinement
}

// MaskState is what a tree's secret-mask decisions know: each file's
// verdict by version, the masks of the last decision and the tree watch
// that follows the changes since (treeWatch). The sessions of a run that
// work in the same tree share one (SessionConfig.Masks): the first walks
// the tree, the next look only at what changed since (issue 35: each
// pulse's first command and each gate run stat-ed every file of a
// 23k-file tree again). Its owner closes it when the run ends.
type MaskState struct {
	mu sync.Mutex
	// key names the tree and the gate of the sessions it serves (the
	// first session's); a session with another uses its own state.
	key   string
	scans map[string]maskScan // by relative path
	// watch follows the tree's changes since the last walk (nil: none,
	// the next decision walks); masks are the paths, relative, masked by
	// the last decision.
	watch *treeWatch
	masks map[string]bool
	// commands holds a token while a command of the tree runs
	// (lockCommands).
	commands chan struct{}
	// tooBig: the tree has more directories than a watch may take; each
	// decision walks it.
	tooBig bool
	full   int // the decisions that walked the whole tree (for tests)
	// journal is what the watch reported since it began (journalState,
	// confine_journal.go): what a workflow's listings of untracked files
	// look at instead of the whole tree.
	journal journalState
	// handover is the restore's walk the first decision takes (Adopt);
	// handed counts the decisions that took one (for tests).
	handover *restoreWatch
	handed   int
	// links are the files the last walk found with several names (hard
	// links), by name and by file: a name of one that changes or goes
	// makes the next decision look at its other names (redteam s10, 03).
	links linkIndex
	// rescans counts the decisions that stat-ed the whole tree without
	// walking it again (rescan; for tests).
	rescans int
	// servers are the masks the tree's language servers started with
	// (langserver.go): a decision that masks more stops them.
	servers serverMasks
}

// NewMaskState makes an empty mask state for the sessions of a run.
func NewMaskState() *MaskState { return &MaskState{} }

// Close stops the state's tree watch.
func (m *MaskState) Close() {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.watch.close()
	m.watch, m.masks = nil, nil
	if m.handover != nil {
		m.handover.Close()
		m.handover = nil
	}
}

// bind makes m serve the sessions of key; false when it serves another.
func (m *MaskState) bind(key string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.key == "" {
		m.key = key
	}
	return m.key == key
}

// maskState is the session's mask state: the run's when it serves this
// tree and gate, else its own. Under c.mu.
func (s *Session) maskState() *MaskState {
	c := &s.confine
	if c.state == nil {
		key := s.root.Dir() + "\x00" + strings.Join(s.cfg.SensitivePaths, "\x00")
		if m := s.cfg.Masks; m != nil && m.bind(key) {
			c.state = m
		} else {
			c.state, c.ownState = NewMaskState(), true
			c.state.bind(key)
		}
	}
	return c.state
}

// sharedMaskState is the session's mask state, for a session derived from
// it (Config).
func (s *Session) sharedMaskState() *MaskState {
	c := &s.confine
	c.mu.Lock()
	defer c.mu.Unlock()
	return s.maskState()
}

// lockCommands waits until no other command of the state's tree runs and
// holds the tree for the caller until it calls the function returned.
//
// A command's masks are decided on the host and made by path when its
// sandbox starts. Another command running meanwhile in the same tree (two
// test sub-agents dispatched at once) could move the folder of a secret
// between the two, and the secret would be readable at its new name: so the
// commands of a tree run one after another, from the mask decision to the
// end of the command (redteam 01).
func (m *MaskState) lockCommands(ctx context.Context) (func(), error) {
	m.mu.Lock()
	if m.commands == nil {
		m.commands = make(chan struct{}, 1)
	}
	turn := m.commands
	m.mu.Unlock()
	select {
	case turn <- struct{}{}:
		return func() { <-turn }, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting for another command in this tree to end: %w", context.Cause(ctx))
	}
}

// maskScan remembers whether a file's content was secret at one version.
type maskScan struct {
	// stamp is the version's whole identity (device, inode, size, times):
	// a file swapped in with another's size and modification time, a
	// decoy's folder moved over the secret's, is another version.
	stamp   workspace.Stamp
	blocked bool
}

// commandSandbox returns the session's sandbox, detecting it on first use.
func (s *Session) commandSandbox(ctx context.Context) (sandbox.Sandbox, error) {
	c := &s.confine
	c.once.Do(func() {
		c.policy, _, c.err = SelectSandbox(ctx, s.cfg.Commands)
	})
	return c.policy.Sandbox, c.err
}

// commandSpec is the confinement of one command of this session
// (sandboxSpec); the tree's language servers, whose sandboxes keep the
// masks of their start, are stopped when it masks a file they see
// (stopStaleServers).
func (s *Session) commandSpec(ctx context.Context, command string, timeout time.Duration) (sandbox.Spec, error) {
	spec, err := s.sandboxSpec(ctx, command, timeout)
	if err == nil {
		s.stopStaleServers(ctx, spec.Masked)
	}
	return spec, err
}

// sandboxSpec is the confinement of one process of this session: the root
// writable, the repository, git and Autarch configuration and protected
// files read-only, Autarch's state and secret files masked, the network
// and writable caches by stage.
func (s *Session) sandboxSpec(ctx context.Context, command string, timeout time.Duration) (sandbox.Spec, error) {
	dir := s.root.Dir()
	repo, err := sandbox.RepoPaths(dir, s.gitCommonDir())
	if err != nil {
		return sandbox.Spec{}, err
	}
	readOnly := repo.ReadOnly
	for _, name := range plantedNames() {
		readOnly = append(readOnly, filepath.Join(dir, name))
	}
	protected, err := s.protectedFiles()
	if err != nil {
		return sandbox.Spec{}, err
	}
	// Git objects holding secret files' content are withheld; the store,
	// brought up to date, also knows which tracked files are clean blobs.
	// The two are decided at once (issue 35: after a worktree changed,
	// each takes a tenth of a second or more on a 23k-file tree); the
	// masks wait for the store only to ask it which files are clean.
	objects := make(chan objectConfinement, 1)
	go func() {
		binds, masked := s.objectBinds(ctx)
		objects <- objectConfinement{binds, masked}
	}()
	var obj objectConfinement
	got := false
	store := func() objectConfinement {
		if !got {
			obj, got = <-objects, true
		}
		return obj
	}
	masked, err := s.maskedFiles(func() map[string]bool { return s.cleanFiles(ctx, len(store().binds) > 0) })
	binds, objMasks := store().binds, store().masked
	if err != nil {
		return sandbox.Spec{}, err
	}
	preflight := s.cfg.Role == "preflight"
	network := s.cfg.Commands.Network == NetworkAlways || preflight && s.cfg.Commands.Network != NetworkNever
	own := s.ownCaches()
	spec := sandbox.Spec{
		Dir: dir, Command: command, Timeout: timeout,
		ReadOnly: append(readOnly, protected...), Masked: append(repo.Masked, masked...),
		Network: network, OwnCaches: own, BuildCache: buildCache(own),
		Env: sandbox.PassEnv(os.Environ(), s.cfg.Commands.Env),
	}
	if gate, kept := gateCommand(ctx); gate {
		spec.Gate = true
		if kept {
			spec.GateCache = gateCache(own)
		}
	}
	if b, ok := s.confine.policy.Sandbox.(*sandbox.Bwrap); ok {
		spec.Caches = b.DefaultCaches()
	}
	spec.Binds, spec.Masked = append(spec.Binds, binds...), append(spec.Masked, objMasks...)
	return spec, nil
}

// objectConfinement is what objectBinds returns.
type objectConfinement struct {
	binds  []sandbox.Bind
	masked []string
}

// gitCommonDir is the repository's git directory for a linked worktree:
// as the caller configured it, else as the worktree's gitdir file names it
// (<common>/worktrees/<name>); "" when the root is no linked worktree.
func (s *Session) gitCommonDir() string {
	if s.cfg.GitCommonDir != "" {
		return s.cfg.GitCommonDir
	}
	// Only the gitdir's own path counts: a commondir file inside it is not
	// trusted to widen what the sandbox exposes.
	gitdir, _, err := workspace.ReadGitFile(s.root.Dir())
	if err != nil {
		return ""
	}
	if filepath.Base(filepath.Dir(gitdir)) != "worktrees" {
		return ""
	}
	return filepath.Dir(filepath.Dir(gitdir))
}

// protectedFiles are the existing files and directories the guardrails'
// protected globs match: commands see them read-only.
func (s *Session) protectedFiles() ([]string, error) {
	var out []string
	fsys := os.DirFS(s.root.Dir())
	for _, p := range s.protectedGlobs() {
		matches, err := doublestar.Glob(fsys, p, doublestar.WithNoFollow())
		if err != nil {
			return nil, fmt.Errorf("protected pattern %q: %w", p, err)
		}
		for _, m := range matches {
			out = append(out, s.root.Abs(m))
		}
	}
	return out, nil
}

// secretFiles are the files commands must not read: those the secret gate
// blocks by name or by content (read_file would refuse them). The walk
// skips .git and dependency directories (ignored files are scanned: local
// configuration with secrets is usually ignored); contents are scanned
// again only when a file changed.
func (s *Session) secretFiles() ([]string, error) { return s.maskedFiles(nil) }

// maskedFiles is secretFiles. clean, when not nil, lists files whose
// content the gate already found clean as a git blob (CleanFiles, taken
// after the walk's first look at them): such a file is not read when it is
// still the version the walk saw (issue 35: the first command in a new
// worktree read every file of the repository).
//
// After a first walk, a decision looks only at what changed since the
// last one, as the session's tree watch reports it (treeWatch: the walk
// stat-ed every file of a 23k-file tree before each command); where the
// watch cannot say, the tree is walked again.
func (s *Session) maskedFiles(clean func() map[string]bool) ([]string, error) {
	c := &s.confine
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.held > 0 && c.heldOK {
		return slices.Clone(c.heldMasks), nil
	}
	c.walks++
	st := s.maskState()
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.scans == nil {
		st.scans = map[string]maskScan{}
	}
	masked, ok := s.maskChanges(st)
	var err error
	if !ok && st.handover != nil {
		masked, ok, err = s.maskHandover(st, clean)
	}
	if !ok {
		masked, err = s.maskWalk(st, clean)
	}
	if c.held > 0 && err == nil {
		c.heldMasks, c.heldOK = slices.Clone(masked), true
	}
	return masked, err
}

// maskWalk decides the masks by walking the whole tree, and starts the
// tree watch that lets the next decision look at what changed only. Under
// c.mu.
func (s *Session) maskWalk(c *MaskState, clean func() map[string]bool) ([]string, error) {
	c.full++
	c.journal.restart()
	c.watch.close()
	c.watch, c.masks = nil, map[string]bool{}
	if !c.tooBig {
		c.watch = newTreeWatch(s.root.Dir())
	}
	enter := func(rel string) {
		if c.watch != nil {
			c.watch.add(rel) // before it is read: nothing created meanwhile is missed
		}
	}
	return s.maskDecide(c, clean, func(skip func(string), each func(maskFile)) bool {
		return walkMaskTree(s.root.Dir(), enter, skip, each)
	})
}

// maskDecide decides the masks from the files walk finds (calling skip for
// a folder it does not enter, each for every file), the state's watch
// started before: a walk of the tree (maskWalk) or what the restore's
// walk found (maskHandover). Under c.mu.
func (s *Session) maskDecide(c *MaskState, clean func() map[string]bool, walk func(skip func(string), each func(maskFile)) (lost bool)) ([]string, error) {
	seen := map[string]bool{}
	var masked []string
	var buf []byte
	type unknown struct {
		rel string
		fi  fs.FileInfo
	}
	var pending []unknown
	var attributes []string // .gitattributes files: they may re-encode files on checkout
	names := linkNames{}
	c.links = linkIndex{}
	decide := func(rel string, fi fs.FileInfo) {
		if s.readVerdict(c, rel, fi, &buf) {
			masked = append(masked, s.root.Abs(rel))
		}
	}
	mask := func(rel string) {
		masked = append(masked, s.root.Abs(rel))
		c.masks[rel] = true
	}
	skip := func(string) { c.journal.skipped = true } // its changes go unseen
	lost := walk(skip, func(f maskFile) {
		rel, fi := f.rel, f.fi
		if path.Base(rel) == ".gitattributes" {
			attributes = append(attributes, rel)
		}
		if fi != nil {
			names.add(fi)
			c.links.add(rel, fi)
		}
		if _, blocked := s.gate.PathBlocked(rel); blocked {
			mask(rel)
			return
		}
		if fi == nil || fi.Size() > maxMaskScan || fi.Size() == 0 {
			return
		}
		seen[rel] = true
		prev, ok := c.scans[rel]
		if stamp := workspace.StampOf(fi); !ok || stamp == (workspace.Stamp{}) || prev.stamp != stamp {
			// A version decided before (by any session or process: the
			// gate's verdicts persist) is not read again. (Its path is
			// not blocked: KnownVerdict's content half.)
			_, blocked, known := s.gate.KnownContentVerdict(stamp)
			if !known {
				pending = append(pending, unknown{rel, fi})
				return
			}
			prev = maskScan{stamp: stamp, blocked: blocked}
			c.scans[rel] = prev
		}
		if prev.blocked {
			mask(rel)
		}
	})
	if lost && c.watch != nil {
		c.watch.lost = true // what an unread folder holds may become readable unseen
	}
	var known map[string]bool
	if clean != nil && len(pending) >= minCleanLookup && !reencodes(s.root, attributes) {
		known = clean()
	}
	for _, p := range pending {
		if known[filepath.ToSlash(p.rel)] {
			// Still the version git compared with its index (it was
			// looked at before git did, and again now): its content is
			// the clean blob.
			now, err := os.Lstat(s.root.Abs(p.rel))
			if st := workspace.StampOf(p.fi); err == nil && now.Mode().IsRegular() && workspace.StampOf(now) == st {
				s.gate.RecordClean(p.rel, st)
				c.scans[p.rel] = maskScan{stamp: st}
				continue
			}
		}
		decide(p.rel, p.fi)
	}
	for rel := range c.scans {
		if !seen[rel] {
			delete(c.scans, rel)
		}
	}
	err := s.unseenLinks(c, names)
	if err != nil || c.watch != nil && c.watch.lost {
		c.tooBig = c.watch != nil && c.watch.full()
		c.watch.close()
		c.watch = nil
	}
	sortWalkOrder(masked)
	return masked, err
}

// readVerdict reads the file rel (fi its walked info) and decides whether
// it is masked, remembering the verdict; false when it vanished or cannot
// be read (nothing to mask). Under the state's lock.
func (s *Session) readVerdict(c *MaskState, rel string, fi fs.FileInfo, buf *[]byte) bool {
	data, st, err := s.root.ReadWalkedStamp(rel, *buf, maxMaskScan)
	if err != nil || data == nil {
		return false
	}
	*buf = data[:0]
	_, blocked := s.gate.FileBlockedStamp(rel, data, st)
	c.scans[rel] = maskScan{stamp: workspace.StampOf(fi), blocked: blocked}
	if blocked {
		c.masks[rel] = true
	}
	return blocked
}

// maskChanges decides the masks from the last decision and what the tree
// watch saw change since; false when it cannot (no watch yet, or it lost
// track): walk instead. Under the state's lock.
func (s *Session) maskChanges(c *MaskState) ([]string, bool) {
	if c.watch == nil {
		return nil, false
	}
	ch, ok := c.drain()
	if !ok {
		return nil, false
	}
	var buf []byte
	// decideFile decides one path the watch named, as the walk would.
	var decideFile func(rel string)
	decideFile = func(rel string) {
		// The other names of a file it named when the last walk found
		// several: written through this one, they changed unseen.
		for _, other := range c.links.forget(rel) {
			decideFile(other)
		}
		delete(c.masks, rel)
		delete(c.scans, rel)
		if inSkippedDir(rel) {
			return
		}
		fi, err := os.Lstat(s.root.Abs(rel))
		if err != nil || !fi.Mode().IsRegular() {
			return // gone, or no file: nothing to mask
		}
		if linkCount(fi) > 1 {
			// Written through one of its names: the others changed
			// unseen (redteam 04). The walk looks at them all.
			c.watch.lost = true
			return
		}
		if _, blocked := s.gate.PathBlocked(rel); blocked {
			c.masks[rel] = true
			return
		}
		if fi.Size() > maxMaskScan || fi.Size() == 0 {
			return
		}
		// Changed: its exact version (inode, size, times) decides, or
		// its content.
		if _, blocked, known := s.gate.KnownVerdict(rel, workspace.StampOf(fi)); known {
			c.scans[rel] = maskScan{stamp: workspace.StampOf(fi), blocked: blocked}
			if blocked {
				c.masks[rel] = true
			}
			return
		}
		s.readVerdict(c, rel, fi, &buf)
	}
	for rel := range ch.paths {
		decideFile(rel)
	}
	// A new directory (made, or moved in whole): watched, then walked.
	for _, dir := range ch.newDirs {
		if inSkippedDir(dir) || skippedDir(path.Base(dir)) {
			c.journal.skipped = true // its changes go unseen, as the walk's (redteam 05)
			continue
		}
		_ = fs.WalkDir(os.DirFS(s.root.Dir()), dir, func(rel string, d fs.DirEntry, err error) error {
			switch {
			case err != nil:
				return nil
			case d.IsDir() && rel != dir && skippedDir(d.Name()):
				return fs.SkipDir
			case d.IsDir():
				c.watch.add(rel)
			default:
				decideFile(rel)
			}
			return nil
		})
	}
	// A name made since and gone again (unlinked, moved over) may have
	// been a hard link written through, and a new folder may have held
	// one unwatched: the file written changed under no name the watch
	// reported, but its status change time moved (redteam s10, 03).
	if relinked := c.watch.relinked(); !c.watch.lost && (relinked || len(ch.newDirs) > 0) {
		s.rescan(c, decideFile)
	}
	if c.watch.lost {
		return nil, false
	}
	masked := make([]string, 0, len(c.masks))
	for rel := range c.masks {
		masked = append(masked, s.root.Abs(rel))
	}
	slices.Sort(masked)
	return masked, true
}

// rescan stats every file of the tree, as the walk finds them, and
// decides again those whose version is not the one decided last: what a
// decision does when a file may have changed under no name the watch
// reported. Unlike a walk (maskWalk) it keeps the watch and its journal,
// which the workflow's listings of untracked files follow. Under the
// state's lock.
func (s *Session) rescan(c *MaskState, decideFile func(rel string)) {
	c.rescans++
	var changed []string
	nothing := func(string) {}
	lost := walkMaskTree(s.root.Dir(), nothing, nothing, func(f maskFile) {
		if f.fi == nil {
			changed = append(changed, f.rel) // as the walk: masked by its name only
			return
		}
		prev, ok := c.scans[f.rel]
		switch stamp := workspace.StampOf(f.fi); {
		case ok && stamp == prev.stamp && stamp != (workspace.Stamp{}):
			// The version decided last.
		case !ok && (f.fi.Size() == 0 || f.fi.Size() > maxMaskScan):
			// Not read now nor, unless it was, at the last decision:
			// decided by its name, which has not changed.
		default:
			changed = append(changed, f.rel)
		}
	})
	if lost {
		c.watch.lost = true
		return
	}
	for _, rel := range changed {
		decideFile(rel)
	}
}

// linkIndex holds, for each file with several names (hard links) a walk
// found, its names there.
type linkIndex struct {
	file  map[string][2]uint64   // by name
	names map[[2]uint64][]string // by file
}

// add notes the name rel of the file fi describes, if it has several.
func (l *linkIndex) add(rel string, fi fs.FileInfo) {
	k, _, ok := linkKey(fi)
	if !ok {
		return
	}
	if l.file == nil {
		l.file, l.names = map[string][2]uint64{}, map[[2]uint64][]string{}
	}
	l.file[rel] = k
	l.names[k] = append(l.names[k], rel)
}

// forget drops the name rel and returns the other names its file had.
func (l *linkIndex) forget(rel string) []string {
	k, ok := l.file[rel]
	if !ok {
		return nil
	}
	delete(l.file, rel)
	others := slices.DeleteFunc(l.names[k], func(n string) bool { return n == rel })
	if len(others) == 0 {
		delete(l.names, k)
		return nil
	}
	l.names[k] = others
	return slices.Clone(others)
}

// linkNames counts, for each file with more than one name (hard links),
// the names a mask walk found.
type linkNames map[[2]uint64]uint64

func linkKey(fi fs.FileInfo) ([2]uint64, uint64, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || st.Nlink < 2 {
		return [2]uint64{}, 0, false
	}
	return [2]uint64{uint64(st.Dev), st.Ino}, uint64(st.Nlink), true
}

// linkCount is the number of names of the file fi describes (1 when the
// system does not say).
func linkCount(fi fs.FileInfo) uint64 {
	if _, n, ok := linkKey(fi); ok {
		return n
	}
	return 1
}

func (l linkNames) add(fi fs.FileInfo) {
	if k, _, ok := linkKey(fi); ok {
		l[k]++
	}
}

// unseenLinks refuses the masks of a walk when a masked file has names the
// walk did not find: hard links in a folder it skips (node_modules, .venv,
// .git) or outside the tree, made while the file was clean, through which a
// command would read it (redteam 04). Under the state's lock.
func (s *Session) unseenLinks(c *MaskState, names linkNames) error {
	var unseen []string
	for rel := range c.masks {
		fi, err := os.Lstat(s.root.Abs(rel))
		if err != nil {
			continue
		}
		if k, n, ok := linkKey(fi); ok && names[k] < n {
			unseen = append(unseen, rel)
		}
	}
	if len(unseen) == 0 {
		return nil
	}
	slices.Sort(unseen)
	return fmt.Errorf("%s holds a secret and has other names (hard links) where Autarch does not look (in node_modules, .venv, .git or outside the project), so it cannot hide it from commands; remove those names (find / -xdev -samefile %s) and run the command again", strings.Join(unseen, ", "), s.root.Abs(unseen[0]))
}

// skippedDir reports whether the walk skips a directory of this name:
// .git or a dependency directory.
func skippedDir(name string) bool { return name == ".git" || dependencyDirs[name] }

// inSkippedDir reports whether rel lies in a directory the walk skips.
func inSkippedDir(rel string) bool {
	for {
		i := strings.IndexByte(rel, '/')
		if i < 0 {
			return false
		}
		if skippedDir(rel[:i]) {
			return true
		}
		rel = rel[i+1:]
	}
}

// holdMasks makes the masks the next command decides hold for the
// session's commands until release: the commands of one gate run, which
// run back to back with nothing but themselves writing the tree (issue
// 35: each walked a 23k-file tree again, a second each on a loaded
// machine). A file one of them writes is then not masked from the next:
// it holds what a command of the same run wrote, as visible to it as to
// the command that wrote it — the same as a file written while a command
// runs.
func (s *Session) holdMasks() (release func()) {
	c := &s.confine
	c.mu.Lock()
	c.held++
	c.mu.Unlock()
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.held--; c.held == 0 {
			c.heldMasks, c.heldOK = nil, false
		}
	}
}

// reencodes reports whether a .gitattributes file may make a checked-out
// file differ from its blob by more than line ends (working-tree-encoding,
// a filter): then no file is taken for its blob.
func reencodes(root *workspace.Root, attributes []string) bool {
	for _, rel := range attributes {
		data, err := root.ReadFile(rel)
		if err != nil || bytes.Contains(data, []byte("encoding")) || bytes.Contains(data, []byte("filter")) {
			return true
		}
	}
	return false
}

// minCleanLookup is how many unread files make asking git which of them
// are clean blobs worth its two processes.
const minCleanLookup = 64

// plantedNames are the names at a command's root that configure git or
// Autarch (.git, .autarch, .mcp.json): bound read-only where they exist,
// and removed after a command that created them where they did not
// (guardRoot).
func plantedNames() []string {
	names := []string{".git"}
	for _, f := range append(trust.ExecutableFiles(), GuardrailsFile) {
		top, _, _ := strings.Cut(f, "/")
		if !slices.Contains(names, top) {
			names = append(names, top)
		}
	}
	return names
}

// rootGuard is what a command's root held of plantedNames before it ran.
type rootGuard struct {
	dir    string
	absent []string
}

// guardRoot notes which planted names are absent at the session's root,
// before a command runs.
func (s *Session) guardRoot() rootGuard {
	g := rootGuard{dir: s.root.Dir()}
	for _, name := range plantedNames() {
		if _, err := os.Lstat(filepath.Join(g.dir, name)); errors.Is(err, fs.ErrNotExist) {
			g.absent = append(g.absent, name)
		}
	}
	return g
}

// undo removes, whole and without following symlinks, what the command
// created of the names that were absent, and says so: the sandbox cannot
// bind a read-only mask where nothing exists, so a command could plant a
// repository (whose configuration the next git on the host obeys) or
// configuration Autarch reads. The command has ended and its sandbox with
// it, so nothing races the removal. An error means something planted is
// still there.
func (g rootGuard) undo() (notices []string, err error) {
	for _, name := range g.absent {
		p := filepath.Join(g.dir, name)
		if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err := removeAll(p); err != nil {
			return notices, fmt.Errorf("the command created %s and Autarch could not remove it (%w): delete %s before running anything else", name, err, p)
		}
		notices = append(notices, fmt.Sprintf("The command created %s; Autarch removed it: commands may not create git or Autarch configuration (%s).", name, strings.Join(plantedNames(), ", ")))
	}
	return notices, nil
}

// removeAll removes p and everything under it without following symlinks,
// making directories the command locked (chmod 0) writable first.
func removeAll(p string) error {
	if os.RemoveAll(p) == nil {
		return nil
	}
	// WalkDir visits a directory before reading it: unlocked in time.
	_ = filepath.WalkDir(p, func(q string, d fs.DirEntry, _ error) error {
		if d != nil && d.IsDir() {
			_ = os.Chmod(q, 0o700)
		}
		return nil
	})
	return os.RemoveAll(p)
}

// buildCache is the Go build cache of the commands of a repository whose
// own caches are in own (ownCaches): writable by them, read by no other
// repository's (the go command trusts its cache's entries: redteam s10,
// 04), and read over the user's own build cache, read-only, by the
// sandbox (sandbox.Spec.BuildCache), so that the standard library is not
// compiled again. "" (a private empty cache per command) without own.
func buildCache(own string) string {
	if own == "" {
		return ""
	}
	return filepath.Join(own, "go-build")
}

// gateCache is the Go build cache of the repository's quality gates
// (sandbox.Spec.GateCache) beside its caches, own: no agent command sees
// it. Empty when there are no caches: each gate then builds with a
// throwaway one.
func gateCache(own string) string {
	if own == "" {
		return ""
	}
	return filepath.Join(filepath.Dir(own), filepath.Base(own)+"-gates", "go-build")
}

// gateKey marks a context whose commands are a quality gate's checks;
// its value says whether they may build with the gates' kept Go build
// cache.
type gateKey struct{}

// asGate returns ctx marked so that its commands run as a quality gate's
// (sandbox.Spec.Gate), with the gates' kept Go build cache when kept (the
// go command alone: verify.GoCommand), else with a throwaway one: a
// program of the repository's that a check runs outside the go command
// (a linter's plugin, a configured command's Makefile) is confined by
// nothing that keeps it from writing the cache.
func asGate(ctx context.Context, kept bool) context.Context {
	return context.WithValue(ctx, gateKey{}, kept)
}

// gateCommand reports whether ctx's commands are a quality gate's, and
// whether they may build with the kept cache.
func gateCommand(ctx context.Context) (gate, kept bool) {
	kept, gate = ctx.Value(gateKey{}).(bool)
	return gate, kept
}

// ownCaches is the directory of the download caches Autarch keeps for the
// session's repository (sandbox.Spec.OwnCaches), so that what one
// repository's commands put in a cache is never built into another's
// programs. It lives in the repository's git directory (a linked
// worktree's common one: every workflow of a repository shares it), in
// Autarch's state folder there (masked to commands; this folder alone is
// bound writable), so it goes when the repository goes. Outside git it
// is under the user's cache directory, named by the root. Empty when
// there is neither.
func (s *Session) ownCaches() string {
	gitDir := s.gitCommonDir()
	if gitDir == "" {
		if fi, err := os.Lstat(filepath.Join(s.root.Dir(), ".git")); err == nil && fi.IsDir() {
			gitDir = filepath.Join(s.root.Dir(), ".git")
		}
	}
	if gitDir != "" {
		return filepath.Join(gitDir, "autarch", "caches")
	}
	// Outside git: by the root, under the user's cache directory.
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	sum := sha256.Sum256([]byte(filepath.Clean(s.root.Dir())))
	return filepath.Join(dir, "autarch", "caches", hex.EncodeToString(sum[:8]))
}

// closeWatch stops the session's own tree watch (Session.Close); a run's
// shared state is closed by the run.
func (c *confinement) closeWatch() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ownState {
		c.state.Close()
	}
}
