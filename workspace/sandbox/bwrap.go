package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// ErrNotInstalled reports that the bwrap binary is missing.
var ErrNotInstalled = errors.New("bubblewrap is not installed: install the Debian package bubblewrap (apt-get install bubblewrap)")

// systemDirs are bound read-only when they are directories, recreated
// when they are symlinks (Debian's merged /usr: /bin -> usr/bin).
var systemDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/nix"}

// forbiddenRoots may not be a command's Dir or a Writable extra: binding
// them writable would expose every other project and the system.
var forbiddenRoots = []string{"/", "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/nix",
	"/proc", "/dev", "/sys", "/tmp", "/var", "/var/tmp", "/run", "/boot", "/home", "/root", "/srv", "/mnt", "/media"}

// etcSecrets are masked whatever their mode.
var etcSecrets = []string{"/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/sudoers", "/etc/sudoers.d",
	"/etc/ssl/private", "/etc/krb5.keytab", "/etc/security/opasswd", "/etc/master.passwd"}

// toolchainRoots are directories, wherever they are (usually the home
// directory), that hold a toolchain whole: a PATH entry inside one exposes
// the whole root read-only (pyenv's shims need its versions, cargo's
// rustup proxies need ~/.rustup).
var toolchainRoots = map[string][]string{
	".cargo":  {".rustup"},
	".rustup": nil,
	".pyenv":  nil,
	".rbenv":  nil,
	".nvm":    nil,
	".goenv":  nil,
	".sdkman": nil,
	".volta":  nil,
	".bun":    nil,
	".deno":   nil,
	".asdf":   nil,
	"sdk":     nil, // golang.org/dl toolchains (~/sdk/go1.x)
	// A project's node_modules/.bin on PATH: its links point into the
	// packages beside it (typescript-language-server, pyright).
	"node_modules": nil,
}

// toolchainSecrets are masked inside a toolchain root.
var toolchainSecrets = []string{".cargo/credentials", ".cargo/credentials.toml"}

// deniedNames are never exposed, even when a PATH entry runs through them.
var deniedNames = map[string]bool{
	".ssh": true, ".aws": true, ".netrc": true, ".config": true, ".gnupg": true, ".docker": true, ".kube": true,
	".azure": true, ".gcloud": true, ".password-store": true, ".git-credentials": true, ".pki": true, ".vault-token": true,
}

// goEnvNames are the go settings carried into the sandbox, whose go
// configuration file (under ~/.config) is not visible.
var goEnvNames = []string{"GOROOT", "GOPATH", "GOMODCACHE", "GOCACHE", "GOFLAGS", "GOPROXY", "GOSUMDB", "GOPRIVATE", "GONOPROXY", "GONOSUMDB", "GOINSECURE"}

// privateGoCache is GOCACHE when no writable build cache is exposed.
const privateGoCache = "/tmp/.go-build-cache"

// Options configure NewBwrap.
type Options struct {
	// Path is the bwrap binary; empty looks "bwrap" up on PATH.
	Path string
	// Logger receives debug records; nil is slog.Default().
	Logger *slog.Logger
	// Limits are the user's limits of every command (LimitsEnv); zero
	// fields are DefaultLimits.
	Limits Limits
	// ProbeTimeout bounds one try of `bwrap --version` and of the trial
	// command (Probe), each tried probeTries times; zero is
	// DefaultProbeTimeout.
	ProbeTimeout time.Duration
}

// Bwrap confines commands with bubblewrap. The host layout (system
// directories, secrets under /etc, toolchains, the go settings) is read
// once by NewBwrap, from the process environment (HOME, PATH).
type Bwrap struct {
	path    string
	version string
	home    string   // "" when HOME is unusable
	base    []string // namespace flags and the host layout
	masked  []string // host secrets masked in every sandbox
	exposed []string // toolchains exposed read-only
	goEnv   []string // go settings, KEY=VALUE
	goCache string   // the user's GOCACHE
	lim     Limits   // defaults filled in
	cgs     cgroups
	setuid  bool // the bwrap binary is setuid
	log     *slog.Logger
	// probeTimeout bounds one try of --version and of the trial.
	probeTimeout time.Duration
	// maskHelper is set by a probe whose trial ran through the mask
	// helper (masks.go); maskHelperMin, when positive, lowers the number
	// of masked files from which it is used (tests).
	maskHelper    atomic.Bool
	maskHelperMin int
	// goCacheProg is set by a probe whose trial ran the Go build cache
	// program (gocache.go) in the sandbox.
	goCacheProg atomic.Bool
	// landlock is the kernel's Landlock ABI version (0: none), which
	// decides how a gate's build cache is kept (gatecache.go).
	landlock int
	exeOnce  sync.Once
	exe      *os.File // the running binary, run as the mask helper and the Go build cache program
	exeErr   error
}

// NewBwrap finds bwrap and reads the host layout. It does not check that
// bwrap works here: Probe does.
func NewBwrap(ctx context.Context, opts Options) (*Bwrap, error) {
	b := &Bwrap{path: opts.Path, log: opts.Logger, lim: opts.Limits.withDefaults(DefaultLimits()), cgs: detectCgroups()}
	if b.log == nil {
		b.log = slog.Default()
	}
	if b.path == "" {
		p, err := exec.LookPath("bwrap")
		if err != nil {
			return nil, fmt.Errorf("%w (%w)", ErrNotInstalled, err)
		}
		b.path = p
	}
	if fi, err := os.Stat(b.path); err == nil {
		b.setuid = fi.Mode()&fs.ModeSetuid != 0
	}
	b.probeTimeout = opts.ProbeTimeout
	if b.probeTimeout <= 0 {
		b.probeTimeout = DefaultProbeTimeout
	}
	version, err := b.readVersion(ctx)
	if err != nil {
		return nil, err
	}
	b.version = version
	if h := os.Getenv("HOME"); filepath.IsAbs(h) && filepath.Clean(h) != "/" {
		b.home = filepath.Clean(h)
	}
	b.readGoEnv(ctx)
	b.landlock = landlockVersion()
	b.base = b.layout()
	return b, nil
}

// DefaultProbeTimeout bounds one try of bwrap's version query and trial
// command: generous, as a loaded machine (load 16 on 2 cores) takes
// seconds to start a process.
const DefaultProbeTimeout = 60 * time.Second

// probeTries is how many times a query or trial that did not finish in
// time (killed by its limit or a signal) is tried.
const probeTries = 3

// readVersion is `bwrap --version`, tried again when it does not finish
// in time. A bwrap that never answers in time on a busy machine is still
// used, its version unknown; one that fails is an error.
func (b *Bwrap) readVersion(ctx context.Context) (string, error) {
	for try := 1; ; try++ {
		vctx, cancel := context.WithTimeout(ctx, b.probeTimeout)
		cmd := exec.CommandContext(vctx, b.path, "--version")
		cmd.WaitDelay = time.Second // a killed wrapper's children may hold stdout
		out, err := cmd.Output()
		timedOut := vctx.Err() != nil
		cancel()
		if err == nil {
			return strings.TrimSpace(string(out)), nil
		}
		var exit *exec.ExitError
		killed := errors.As(err, &exit) && exit.ExitCode() == -1
		if ctx.Err() != nil || !(timedOut || killed) {
			return "", fmt.Errorf("sandbox: %s --version: %w", b.path, err)
		}
		b.log.Warn("sandbox: bwrap --version did not finish; trying again", "try", try, "limit", b.probeTimeout, "err", err)
		if try == probeTries {
			return fmt.Sprintf("bubblewrap (version unknown: %s --version did not answer within %v, %d tries, on a busy machine)", b.path, b.probeTimeout, probeTries), nil
		}
	}
}

// Name is the bubblewrap version ("bubblewrap 0.8.0").
func (b *Bwrap) Name() string { return b.version }

// Confined is true.
func (b *Bwrap) Confined() bool { return true }

// Run runs spec to completion.
func (b *Bwrap) Run(ctx context.Context, spec Spec) (Result, error) {
	return run(ctx, b, spec)
}

// Command returns bwrap confining bash -c spec.Command.
func (b *Bwrap) Command(ctx context.Context, spec Spec) (*exec.Cmd, error) {
	args, env, helper, goCache, err := b.args(spec)
	if err != nil {
		return nil, err
	}
	b.log.Debug("sandbox command", "dir", spec.Dir, "network", spec.Network, "args", len(args), "mask helper", helper, "go cache program", goCache)
	if spec.gate == nil || b.setuid {
		// A setuid bwrap's child cannot be limited from outside.
		argv := wrap(append([]string{b.path}, args...), b.lim.lower(spec.Limits), spec.gate.cgroupOf())
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		if cmd.ExtraFiles, err = b.extraFiles(nil, helper, goCache); err != nil {
			return nil, err
		}
		groupCommand(cmd, env)
		return cmd, nil
	}
	gateArgs, files, err := spec.gate.bwrapArgs()
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, b.path, append(gateArgs, args...)...)
	if cmd.ExtraFiles, err = b.extraFiles(files, helper, goCache); err != nil {
		spec.gate.close()
		return nil, err
	}
	groupCommand(cmd, env)
	return cmd, nil
}

// limits are the user's limits and the cgroups found by NewBwrap.
func (b *Bwrap) limits() (Limits, cgroups, *slog.Logger) { return b.lim, b.cgs, b.log }

// Args returns bwrap's arguments for spec, for inspection (autarch
// doctor, tests).
func (b *Bwrap) Args(spec Spec) ([]string, error) {
	args, _, _, _, err := b.args(spec)
	return args, err
}

// readGoEnv asks the host's go for its settings, when go is installed.
func (b *Bwrap) readGoEnv(ctx context.Context) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, goBin, append([]string{"env", "-json"}, goEnvNames...)...)
	cmd.Env = setEnv(os.Environ(), "GOTOOLCHAIN", "local")
	out, err := cmd.Output()
	if err != nil {
		b.log.Debug("sandbox: go env", "err", err)
		return
	}
	var vals map[string]string
	if err := json.Unmarshal(out, &vals); err != nil {
		b.log.Debug("sandbox: go env", "err", err)
		return
	}
	for _, name := range goEnvNames {
		v := vals[name]
		if v == "" || credentialURL.MatchString(v) {
			continue
		}
		if name == "GOCACHE" {
			b.goCache = v
			continue
		}
		b.goEnv = append(b.goEnv, name+"="+v)
	}
}

// layout returns the namespace flags and the host layout shared by every
// command.
func (b *Bwrap) layout() []string {
	a := []string{
		"--unshare-user-try", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
		"--hostname", "autarch-sandbox", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
	}
	for _, d := range systemDirs {
		fi, err := os.Lstat(d)
		switch {
		case err != nil:
		case fi.Mode()&fs.ModeSymlink != 0:
			if t, err := os.Readlink(d); err == nil {
				a = append(a, "--symlink", t, d)
			}
		case fi.IsDir():
			a = append(a, "--ro-bind", d, d)
		}
	}
	// Name service files that are symlinks out of /etc (systemd-resolved's
	// /etc/resolv.conf -> /run/systemd/resolve/stub-resolv.conf).
	for _, f := range []string{"/etc/resolv.conf", "/etc/hosts", "/etc/nsswitch.conf", "/etc/localtime"} {
		t, err := filepath.EvalSymlinks(f)
		if err != nil || t == f || b.systemVisible(t) {
			continue
		}
		a = append(a, "--ro-bind", t, t)
	}
	a = append(a, "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--tmpfs", "/var/tmp")
	b.masked = etcMasks()
	for _, m := range b.masked {
		a = appendMask(a, m)
	}
	if b.home != "" {
		a = append(a, "--tmpfs", b.home)
	}
	for _, root := range b.toolchains() {
		b.exposed = append(b.exposed, root)
		a = append(a, "--ro-bind", root, root)
		for _, s := range toolchainSecrets {
			p := filepath.Join(filepath.Dir(root), s)
			if strings.HasPrefix(p, root+"/") && exists(p) {
				b.masked = append(b.masked, p)
				a = appendMask(a, p)
			}
		}
	}
	return a
}

// systemVisible reports whether p is under a system directory bound in
// every sandbox.
func (b *Bwrap) systemVisible(p string) bool {
	for _, d := range systemDirs {
		if within(p, d) && exists(d) {
			return true
		}
	}
	return false
}

// toolchains returns the directories outside the system directories that
// PATH and GOROOT need, read-only: a toolchain root (~/.cargo, ~/.pyenv…)
// or the PATH entry itself, never the home directory or an ancestor of it,
// and never a path through a denied name (~/.ssh, ~/.config…).
func (b *Bwrap) toolchains() []string {
	var cands []string
	for _, e := range filepath.SplitList(os.Getenv("PATH")) {
		cands = append(cands, e)
	}
	for _, kv := range b.goEnv {
		if v, ok := strings.CutPrefix(kv, "GOROOT="); ok {
			cands = append(cands, v)
		}
	}
	var roots []string
	add := func(p string) {
		if !slices.Contains(roots, p) {
			roots = append(roots, p)
		}
	}
	for _, e := range cands {
		if !filepath.IsAbs(e) {
			continue
		}
		p, err := filepath.EvalSymlinks(e)
		if err != nil || b.systemVisible(p) || p == "/" || (b.home != "" && within(b.home, p)) || denied(p) {
			continue
		}
		if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
			continue
		}
		root := p
		parts := strings.Split(p, "/")
		for i, part := range parts {
			if companions, ok := toolchainRoots[part]; ok && i > 1 {
				root = strings.Join(parts[:i+1], "/")
				for _, c := range companions {
					if cp := filepath.Join(filepath.Dir(root), c); isDir(cp) {
						add(cp)
					}
				}
				break
			}
		}
		add(root)
	}
	// A root inside another is bound by it.
	return outermost(roots)
}

// etcMasks returns the secrets under /etc: the well-known ones and every
// file or directory others may not read.
func etcMasks() []string {
	var out []string
	for _, s := range etcSecrets {
		if _, err := os.Lstat(s); err == nil {
			out = append(out, s)
		}
	}
	_ = filepath.WalkDir("/etc", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if d != nil && d.IsDir() && p != "/etc" {
				out = append(out, p)
				return fs.SkipDir
			}
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		private := fi.Mode().Perm()&0o004 == 0 || (d.IsDir() && fi.Mode().Perm()&0o001 == 0)
		if private && p != "/etc" {
			if !slices.Contains(out, p) {
				out = append(out, p)
			}
			if d.IsDir() {
				return fs.SkipDir
			}
		}
		return nil
	})
	// A path inside a masked directory is masked with it.
	return outermost(out)
}

// appendMask hides p: an empty read-only directory over a directory,
// /dev/null over anything else. /dev/null is bound with device access
// (--dev-bind): a read-only bind is mounted nodev, where opening the
// device is refused, and the mask should read as empty; what is written
// to it is discarded, and the file underneath is never touched.
func appendMask(a []string, p string) []string {
	mount, seal := maskArgs(p)
	return append(append(a, mount...), seal...)
}

// maskArgs returns the arguments that mount p's mask and those that then
// make it read-only (none for a file). Binds deeper inside a directory's
// mask must come between the two: bwrap creates their mount points in the
// empty directory.
func maskArgs(p string) (mount, seal []string) {
	return maskArgsOf(p, isDir(p))
}

// maskArgsOf is maskArgs for p known to be a folder (dir) or not.
func maskArgsOf(p string, dir bool) (mount, seal []string) {
	if dir {
		return []string{"--tmpfs", p}, []string{"--remount-ro", p}
	}
	return []string{"--dev-bind", "/dev/null", p}, nil
}

type bindKind int

const (
	bindWritable bindKind = iota
	bindReadOnly
	bindOnto // a Spec.Binds source bound read-only at the path
	bindPin  // a folder above a mask bound onto itself: it cannot be moved (pins.go)
	bindMask
)

type bind struct {
	path string
	kind bindKind
	file bool // a mask over a file, not a folder
}

// args builds bwrap's arguments and the command's environment, and says
// whether they run the mask helper and bind the Go build cache program.
func (b *Bwrap) args(spec Spec) (_ []string, _ []string, helper, goCache bool, _ error) {
	dir, err := spec.validate()
	if err != nil {
		return nil, nil, false, false, err
	}
	if !isDir(dir) {
		return nil, nil, false, false, fmt.Errorf("sandbox: %s is not an existing directory", dir)
	}
	// A writable tree given through a symlink is confined at its target:
	// every check of what lies inside it (masks, read-only paths) and of
	// what it may be compares resolved paths.
	dir = resolveDir(dir)
	if err := b.checkWritableRoot(dir); err != nil {
		return nil, nil, false, false, err
	}
	abs := func(p string) string {
		if filepath.IsAbs(p) {
			return filepath.Clean(p)
		}
		return filepath.Join(dir, p)
	}
	binds := []bind{{path: dir, kind: bindWritable}}
	writableRoots := []string{dir}
	for _, w := range spec.Writable {
		p := abs(w)
		if !isDir(p) {
			continue
		}
		p = resolveDir(p)
		if err := b.checkWritableRoot(p); err != nil {
			return nil, nil, false, false, err
		}
		binds = append(binds, bind{path: p, kind: bindWritable})
		writableRoots = append(writableRoots, p)
	}
	env := b.environ()
	// The user's own caches are never writable, not even in preflight:
	// the go command trusts its build cache's entries and the sources it
	// extracted, cargo its registry's sources, pip its wheels, so a
	// planted entry would run in the user's own builds, outside any
	// sandbox (redteam s10, 04 and 05). Commands write the caches Autarch
	// keeps for the repository (OwnCaches) instead.
	for _, c := range spec.Caches {
		if p := abs(c); isDir(p) && !denied(p) {
			binds = append(binds, bind{path: p, kind: bindReadOnly})
		}
	}
	ownCaches := ""
	if spec.OwnCaches != "" {
		p := abs(spec.OwnCaches)
		ownCaches = p
		if err := b.checkWritableRoot(p); err != nil {
			return nil, nil, false, false, err
		}
		for _, sub := range ownCacheDirs {
			// A command may have put a link or a file in a cache's place
			// (a link to nothing would fail every later command):
			// cacheDir removes it and makes the folder again.
			if err := cacheDir(filepath.Join(p, sub.dir), true, 0o700); err != nil {
				return nil, nil, false, false, fmt.Errorf("sandbox: the repository's caches: %w", err)
			}
		}
		binds = append(binds, bind{path: p, kind: bindWritable})
		writableRoots = append(writableRoots, p)
		env = ownCacheEnv(env, p)
	}
	switch {
	case spec.BuildCache != "":
		p := abs(spec.BuildCache)
		if err := b.checkWritableRoot(p); err != nil {
			return nil, nil, false, false, err
		}
		inOwn := ownCaches != "" && within(p, ownCaches) && p != ownCaches
		if err := buildCacheDir(p, inOwn); err != nil {
			return nil, nil, false, false, err
		}
		// Inside the repository's caches the build cache is visible
		// through their bind: bwrap never resolves a path in it that a
		// command could have made a symlink.
		if !inOwn {
			binds = append(binds, bind{path: p, kind: bindWritable})
			writableRoots = append(writableRoots, p)
		}
		env = setEnv(env, "GOCACHE", p)
		if prog := b.goCacheLayer(spec, p); prog != "" {
			env = setEnv(env, "GOCACHEPROG", prog)
			if !slices.ContainsFunc(spec.Caches, func(c string) bool { return abs(c) == b.goCache }) {
				binds = append(binds, bind{path: b.goCache, kind: bindReadOnly})
			}
			goCache = true
		}
	case b.goCache != "":
		env = setEnv(env, "GOCACHE", privateGoCache)
	}
	// A path given through a symlink is bound at its target only when the
	// target is inside a writable tree: a link must not expose anything.
	resolved := resolver{}
	for _, r := range spec.ReadOnly {
		p, _, ok := resolved.inside(abs(r), writableRoots, nil)
		if ok {
			binds = append(binds, bind{path: p, kind: bindReadOnly})
		}
	}
	onto := map[string]string{} // Spec.Binds: destination → source
	for _, o := range spec.Binds {
		if !filepath.IsAbs(o.Source) {
			return nil, nil, false, false, fmt.Errorf("sandbox: bind source %q is not absolute", o.Source)
		}
		p, _, ok := resolved.inside(abs(o.Dest), writableRoots, nil)
		if !ok {
			continue
		}
		if _, err := os.Stat(o.Source); err != nil {
			return nil, nil, false, false, fmt.Errorf("sandbox: bind over %s: %w", p, err)
		}
		onto[p] = filepath.Clean(o.Source)
		binds = append(binds, bind{path: p, kind: bindOnto})
	}
	for _, m := range spec.Masked {
		p, fi, ok := resolved.inside(abs(m), writableRoots, b.systemVisible)
		if ok {
			binds = append(binds, bind{path: p, kind: bindMask, file: !fi.IsDir()})
		}
	}
	binds = append(binds, pins(binds)...)
	// Parents first, so that a deeper bind wins; masks last among equals.
	slices.SortStableFunc(binds, func(x, y bind) int {
		if d := strings.Count(x.path, "/") - strings.Count(y.path, "/"); d != 0 {
			return d
		}
		return int(x.kind) - int(y.kind)
	})
	binds, helperFiles := b.helperMasks(spec.helper, binds)
	a := slices.Clone(b.base)
	if !spec.Network {
		a = append(a, "--unshare-net")
	}
	var seals []string // masks made read-only once everything inside them is bound
	for _, bd := range binds {
		switch bd.kind {
		case bindWritable, bindPin:
			a = append(a, "--bind", bd.path, bd.path)
		case bindReadOnly:
			a = append(a, "--ro-bind", bd.path, bd.path)
		case bindOnto:
			a = append(a, "--ro-bind", onto[bd.path], bd.path)
		case bindMask:
			mount, seal := maskArgsOf(bd.path, !bd.file)
			a = append(a, mount...)
			seals = append(seals, seal...)
		}
	}
	a = append(a, seals...)
	env = mergeEnv(env, spec.Env)
	if spec.Gate {
		var gateArgs []string
		if gateArgs, env, err = b.gateLayer(spec, writableRoots, env); err != nil {
			return nil, nil, false, false, err
		}
		a = append(a, gateArgs...)
		goCache = true
	}
	if goCache {
		a = append(a, "--ro-bind-fd", strconv.Itoa(goCacheFD), goCacheProgPath)
	}
	a = append(a, "--chdir", dir)
	command := []string{"bash", "-c", spec.Command}
	if helperFiles != nil {
		return append(a, helperArgs(helperFiles, env, command, os.Getuid(), os.Getgid())...), env, true, goCache, nil
	}
	return append(append(a, "--"), command...), env, false, goCache, nil
}

// checkWritableRoot refuses a writable directory that would expose the
// system, the home directory or every project.
func (b *Bwrap) checkWritableRoot(p string) error {
	p = filepath.Clean(p)
	if slices.Contains(forbiddenRoots, p) {
		return fmt.Errorf("sandbox: %s may not be writable", p)
	}
	if b.home != "" && within(b.home, p) {
		return fmt.Errorf("sandbox: %s contains the home directory and may not be writable", p)
	}
	if denied(p) {
		return fmt.Errorf("sandbox: %s holds credentials and may not be writable", p)
	}
	return nil
}

// resolver resolves paths as filepath.EvalSymlinks does, remembering the
// folders it resolved: a command's many masked files share few folders.
type resolver map[string]string // folder → resolved, "" when it does not resolve

// inside returns p with its symlinks resolved and what it resolves to
// (os.Stat), when it exists and is either given without symlinks or
// resolves inside one of roots (or satisfies also).
func (rs resolver) inside(p string, roots []string, also func(string) bool) (string, fs.FileInfo, bool) {
	fi, err := os.Lstat(p)
	if err != nil {
		return "", nil, false
	}
	r, err := rs.eval(p, fi)
	if err != nil {
		return "", nil, false
	}
	ok := r == p
	for _, root := range roots {
		ok = ok || within(r, root)
	}
	if !ok && (also == nil || !also(r)) {
		return "", nil, false
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		if fi, err = os.Stat(r); err != nil {
			return "", nil, false
		}
	}
	return r, fi, true
}

// eval is filepath.EvalSymlinks(p) for an existing p (fi its Lstat): a
// file that is not a symlink resolves to its resolved folder's entry.
func (rs resolver) eval(p string, fi fs.FileInfo) (string, error) {
	dir := filepath.Dir(p)
	if fi.Mode()&fs.ModeSymlink != 0 || dir == p {
		return filepath.EvalSymlinks(p)
	}
	rd, ok := rs[dir]
	if !ok {
		rd, _ = filepath.EvalSymlinks(dir)
		rs[dir] = rd
	}
	if rd == "" {
		return "", fmt.Errorf("sandbox: %s does not resolve", dir)
	}
	return filepath.Join(rd, filepath.Base(p)), nil
}

// resolveDir is the existing directory p with its symlinks resolved.
func resolveDir(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

func cleanAll(ps []string, abs func(string) string) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = abs(p)
	}
	return out
}

// within reports whether p is root or inside it.
// outermost sorts paths and keeps those not within another of them.
func outermost(paths []string) []string {
	slices.Sort(paths)
	var kept []string
	for _, p := range paths {
		if len(kept) > 0 && within(p, kept[len(kept)-1]) {
			continue
		}
		kept = append(kept, p)
	}
	return kept
}

func within(p, root string) bool {
	if root == "/" {
		return true
	}
	return strings.HasPrefix(p, root) && (len(p) == len(root) || p[len(root)] == '/')
}

// denied reports whether a component of p is a credential store.
func denied(p string) bool {
	for _, part := range strings.Split(p, "/") {
		if deniedNames[part] {
			return true
		}
	}
	return false
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
