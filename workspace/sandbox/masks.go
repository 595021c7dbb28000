package sandbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/autarch-dev/autarch/workspace/sandbox/internal/maskinit"
)

// Many masked files are bound by the mask helper (maskinit) rather than
// by bwrap, whose every bind re-reads the whole mount table: from
// maskHelperMin files on, bwrap sets up everything else and runs the
// running binary again, as the helper, with CAP_SYS_ADMIN and
// CAP_SETPCAP in the sandbox's user namespace; the helper binds /dev/null
// over each file, drops every capability and executes the command. For a
// user other than root, the helper runs as root of the sandbox's only
// user namespace and starts the command as the user in a nested one of
// its own, staying its parent (helperArgs, maskinit.User). What the
// command sees and can do is the same either way (masks_test.go,
// masks_user_test.go).
// Probe turns the helper on once a trial command ran through it; until
// then, or when bwrap refuses --cap-add (a setuid bwrap), bwrap makes
// every mask.

// maskHelperMin is the number of masked files from which the helper is
// used. Starting the helper (a Go runtime) costs ~4 ms on a quiet machine,
// bwrap's binds of 8–12 files as much; on a loaded one (load 10 on 2
// cores) the helper's start suffers more and the two meet at ~16–25 files
// (TestMasksTable, BenchmarkMasks).
const maskHelperMin = 16

// helperFD is the descriptor at which bwrap and the helper find the
// running binary: after the gate's two (3 and 4).
const helperFD = 5

// helperPath is the helper's path inside the sandbox.
var helperPath = fmt.Sprintf("/proc/self/fd/%d", helperFD)

// helperMode says whether a spec's masks go through the helper.
type helperMode int

const (
	helperAuto   helperMode = iota // when probed and with enough masked files
	helperAlways                   // whenever a masked file can be (the probe's trial, tests)
	helperNever                    // bwrap makes every mask (tests)
)

// helperMasks returns the masked files of binds that the helper binds,
// and binds without them; none when bwrap binds them all. A file
// qualifies when its mount point is visible through a bind deeper than
// any masked folder around it: inside a masked (empty) folder only bwrap
// can create the mount point before the folder is made read-only.
//
// Pinned folders (pins.go) go with the files: the helper opens each
// refusing symlinks. Where bwrap makes the masks it pins the folders too
// (bwrap would follow a symlink put in a folder's place between the
// decision and the bind; the commands of a tree take turns, so none runs
// meanwhile: tools' lockCommands).
func (b *Bwrap) helperMasks(mode helperMode, binds []bind) ([]bind, []string) {
	if mode == helperNever || b.setuid || !maskinit.Supported || (mode == helperAuto && !b.maskHelper.Load()) {
		return binds, nil
	}
	// The deepest bind at each path: a mask last among equals (args' order).
	at := make(map[string]bind, len(binds)+len(b.masked))
	for _, m := range b.masked {
		at[m] = bind{path: m, kind: bindMask}
	}
	for _, bd := range binds {
		at[bd.path] = bd
	}
	var kept []bind
	var files []string // and the folders to pin, each with a slash after it (maskinit.Argv)
	n := 0
	for _, bd := range binds {
		switch {
		case bd.kind == bindMask && bd.file && visibleUnder(bd.path, at):
			files = append(files, bd.path)
			n++
		case bd.kind == bindPin:
			files = append(files, bd.path+"/")
		default:
			kept = append(kept, bd)
		}
	}
	if n == 0 || (mode == helperAuto && n < b.helperMin()) {
		return binds, nil
	}
	return kept, files
}

// visibleUnder reports whether the file p is visible, in the sandbox,
// through a bind that is not a mask (at p itself, or at its deepest
// folder that has one) rather than inside a masked folder. at holds the
// binds by path.
func visibleUnder(p string, at map[string]bind) bool {
	for d := p; ; d = filepath.Dir(d) {
		bd, ok := at[d]
		switch {
		case !ok:
		case d == p && bd.kind == bindMask: // the mask itself, or another at the same path
		case bd.kind == bindMask:
			return false
		default:
			return true
		}
		if d == "/" {
			return false
		}
	}
}

// helperMin is maskHelperMin unless a test lowered it.
func (b *Bwrap) helperMin() int {
	if b.maskHelperMin > 0 {
		return b.maskHelperMin
	}
	return maskHelperMin
}

// helperArgs returns the tail of bwrap's arguments that runs command
// through the helper, which masks files: the two capabilities it needs
// (bwrap's --cap-drop ALL came first), no environment but two settings of
// the Go runtime (the command's environment is in the helper's
// arguments), and the helper's argv.
//
// For a user other than root (uid, gid), bwrap (unprivileged) would run
// the command in a user namespace nested in the one that owns the
// sandbox's mounts, where the helper's capabilities could not mount: it
// runs the helper as root of the only namespace instead (--uid 0 --gid
// 0), and the helper starts the command as uid and gid in a nested one of
// its own (which takes CAP_SETFCAP: the kernel's rule for mapping a
// namespace's root into another), staying its parent (one more process:
// a Procs limit counts it and its Go runtime's few threads).
func helperArgs(files, env []string, command []string, uid, gid int) []string {
	var a []string
	var user *maskinit.User
	if uid != 0 {
		a = append(a, "--uid", "0", "--gid", "0", "--cap-add", "CAP_SETFCAP")
		user = &maskinit.User{UID: uid, GID: gid}
	}
	a = append(a, "--cap-add", "CAP_SYS_ADMIN", "--cap-add", "CAP_SETPCAP", "--clearenv",
		"--setenv", "GOMAXPROCS", "1", "--setenv", "GOGC", "off", "--") // the helper's Go runtime starts faster
	return append(a, maskinit.Argv(helperPath, files, env, user, command)...)
}

// executable opens the running binary once, for the helper: through
// /proc/self/exe, so that a binary replaced on disk (an upgrade while the
// server runs) is still the one executed.
func (b *Bwrap) executable() (*os.File, error) {
	b.exeOnce.Do(func() {
		b.exe, b.exeErr = os.Open("/proc/self/exe")
		if b.exeErr != nil {
			b.exeErr = fmt.Errorf("sandbox: opening the running binary for the mask helper: %w", b.exeErr)
		}
	})
	return b.exe, b.exeErr
}

// extraFiles returns cmd.ExtraFiles: files (the gate's, at most two) and
// the running binary at helperFD for the helper and at goCacheFD for the
// Go build cache program (gocache.go).
func (b *Bwrap) extraFiles(files []*os.File, helper, goCache bool) ([]*os.File, error) {
	if !helper && !goCache {
		return files, nil
	}
	exe, err := b.executable()
	if err != nil {
		return nil, err
	}
	n := helperFD
	if goCache {
		n = goCacheFD
	}
	out := make([]*os.File, n-3+1)
	copy(out, files)
	if helper {
		out[helperFD-3] = exe
	}
	if goCache {
		out[goCacheFD-3] = exe
	}
	return out, nil
}

// probeMaskHelper runs a trial command through the helper in the probe's
// directory: a masked file must read as empty and the command hold no
// capability. It turns the helper on when the trial passes, and says why
// not otherwise ("" when it passed).
func (b *Bwrap) probeMaskHelper(ctx context.Context, dir string, limit time.Duration) string {
	key := filepath.Join(dir, "probe.key")
	if err := os.WriteFile(key, []byte("autarch-probe-secret\n"), 0o600); err != nil {
		return err.Error()
	}
	// The command runs as the user, with no capability and no_new_privs;
	// as root its bounding set is empty too (as a user, the helper's
	// nested user namespace gives it a full one, which no_new_privs keeps
	// from ever filling its other sets).
	check := `test ! -s probe.key && test "$(id -u):$(id -g)" = ` + fmt.Sprintf("%d:%d", os.Getuid(), os.Getgid()) +
		` && grep -q '^NoNewPrivs:[[:space:]]*1$' /proc/self/status && ! grep -Eq '^Cap(Inh|Prm|Eff|Amb):[[:space:]]*0*[1-9a-f]' /proc/self/status`
	if os.Getuid() == 0 {
		check += ` && grep -q '^CapBnd:[[:space:]]*0*$' /proc/self/status`
	}
	res, err := b.Run(ctx, Spec{Dir: dir, Masked: []string{key}, Timeout: limit, helper: helperAlways, Command: check})
	switch {
	case err != nil:
		return err.Error()
	case res.ExitCode != 0:
		return fmt.Sprintf("exit %d: %s", res.ExitCode, strings.TrimSpace(res.Stderr))
	}
	b.maskHelper.Store(true)
	return ""
}
