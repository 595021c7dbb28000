package sandbox

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/autarch-dev/autarch/internal/testkit"
	"github.com/autarch-dev/autarch/workspace/sandbox/internal/maskinit"
)

// helperFixture is a fixture whose project holds many secret files
// besides .env and secrets/ (maskedFiles: "mask-bench" keys).
func helperFixture(t *testing.T) (*fixture, []string) {
	t.Helper()
	f := newFixture(t)
	return f, append([]string{".env", "secrets", "missing.key"}, maskedFiles(t, f.dir, 2*maskHelperMin)...)
}

// usesHelper reports whether spec's arguments run the mask helper.
func usesHelper(t *testing.T, sb *Bwrap, spec Spec) bool {
	t.Helper()
	if spec.Dir == "" {
		t.Fatal("usesHelper needs spec.Dir")
	}
	args, err := sb.Args(spec)
	if err != nil {
		t.Fatal(err)
	}
	return slices.Contains(args, "CAP_SYS_ADMIN") && slices.Contains(args, helperPath)
}

// viewScript prints what a command sees of its masks, its process and its
// environment: it must print the same whichever makes the masks.
const viewScript = `m=pkg00/key000.pem
for p in .env $m; do printf '%s: [' $p; cat $p; printf '] '; wc -c < $p; stat -c '%F %s %t:%T %a %h' $p; done
echo more >> .env; echo more >> $m; printf 'after writes: [%s%s]\n' "$(cat .env)" "$(cat $m)"
printf 'masked folder: [%s] ' "$(ls -A secrets)"; touch secrets/x 2>/dev/null || echo read-only
grep -E '^(Cap|NoNewPrivs|Seccomp|Sig(Blk|Ign)|Uid|Gid|Groups)' /proc/self/status
grep -E '^(Cap(Inh|Prm|Eff|Amb)|NoNewPrivs)' /proc/1/status | sed 's/^/pid 1 /'
echo pid $$ ppid $PPID
awk '{print "pgrp", $5, "session", $6, "tty", $7}' /proc/self/stat
sed 's/autarch-[0-9]*-[a-z0-9]*$/autarch-PID-RANDOM/' /proc/self/cgroup
ulimit -a
pwd
env | sort
ls /proc/self/fd
for p in .env $m; do awk -v p="$PWD/$p" '$5 == p { for (i = 3; i <= NF; i++) if ($i !~ /^(shared|master|propagate_from|unbindable):/) printf "%s ", $i; print "" }' /proc/self/mountinfo; done
exec python3 -c 'import ctypes; c = ctypes.c_int(); ctypes.CDLL(None).prctl(2, ctypes.byref(c)); print("pdeathsig", c.value)'
`

// TestMaskHelperSameView: a command whose masks the helper made sees
// exactly what it sees under bwrap's own masks: the masked files read as
// empty and discard writes (the null device, same mount options), the
// masked folder is empty and read-only, and its capabilities, signals,
// process ids, session, cgroup, limits, environment (also LD_PRELOAD,
// which never reaches the helper: the loader would complain twice), open
// descriptors and parent-death signal are the same. One difference:
// bwrap's own first process (PID 1, its monitor) keeps CAP_SYS_ADMIN and
// CAP_SETPCAP in its bounding set, with none permitted or effective and
// no_new_privs, so nothing can raise them (TestMaskHelperAttacks takes
// it over with a debugger).
func TestMaskHelperSameView(t *testing.T) {
	f, masked := helperFixture(t)
	out := map[helperMode]Result{}
	for _, mode := range []helperMode{helperNever, helperAlways} {
		spec := Spec{Dir: f.dir, Command: viewScript, Masked: masked, ReadOnly: []string{".autarch"}, helper: mode,
			Env: []string{"LD_PRELOAD=/nonexistent-preload.so", "AUTARCH_VIEW=1"}}
		if got := usesHelper(t, f.sb, spec); got != (mode == helperAlways) {
			t.Fatalf("mode %d: the helper is used: %v", mode, got)
		}
		res := f.run(t, spec)
		if res.ExitCode != 0 {
			t.Fatalf("mode %d: exit %d, stderr %q", mode, res.ExitCode, res.Stderr)
		}
		out[mode] = res
	}
	bw, helper := out[helperNever], out[helperAlways]
	bwView, helperView := bw.Stdout, helper.Stdout
	wants := []string{".env: [] 0\ncharacter special file 0 1:3", "pkg00/key000.pem: [] 0\ncharacter special file 0 1:3",
		"after writes: []", "masked folder: [] read-only", "CapEff:\t0000000000000000", "CapBnd:\t0000000000000000",
		"CapAmb:\t0000000000000000", "NoNewPrivs:\t1", "pid 1 CapPrm:\t0000000000000000", "pid 2 ppid 1", "pdeathsig 9", "AUTARCH_VIEW=1"}
	if os.Getuid() != 0 { // the helper's own user namespace (masks_user_test.go)
		bwView, helperView, wants = userViews(t, bwView, helperView, wants)
	}
	if bwView != helperView || bw.Stderr != helper.Stderr {
		t.Errorf("the command sees another sandbox through the helper:\n%s\nstderr under bwrap %q, through the helper %q",
			diffLines(bwView, helperView), bw.Stderr, helper.Stderr)
	}
	for _, want := range wants {
		if !strings.Contains(helper.Stdout, want) {
			t.Errorf("through the helper the command does not see %q:\n%s", want, helper.Stdout)
		}
	}
	if strings.Contains(helper.Stdout+helper.Stderr, "secret") || strings.Contains(helper.Stdout, "mask-bench") {
		t.Errorf("a masked file was revealed:\n%s", helper.Stdout)
	}
	if b, _ := os.ReadFile(filepath.Join(f.dir, ".env")); string(b) != dotEnvText {
		t.Errorf(".env changed on the host: %q", b)
	}
}

// TestMaskHelperAttacks: a command cannot take away, move or get around a
// mask the helper made, with any means it has: no capability is left
// (bounding, ambient, inheritable, permitted, effective), and in a user
// and mount namespace of its own the masks are locked.
func TestMaskHelperAttacks(t *testing.T) {
	f, masked := helperFixture(t)
	const key = "pkg03/key003.pem"
	// In this attack the program that prints its capabilities is PID 1's,
	// whose bounding set is bwrap's (and the command is killed as PID 1
	// ends).
	const pid1Executes = "let the sandbox's first process execute a program"
	tests := []struct{ name, command string }{
		{"umount", "umount .env; umount " + key + "; cat .env " + key},
		{"lazy umount", "umount -l .env; umount -l " + key + "; cat .env " + key},
		{"umount through the syscall", `python3 -c 'import ctypes; l = ctypes.CDLL(None, use_errno=True); print(l.umount2(b".env", 2), ctypes.get_errno())'; cat .env`},
		{"move the mask away", "touch /tmp/f; mount --move .env /tmp/f; cat .env"},
		{"remount the masked folder read-write", "mount -o remount,rw secrets; touch secrets/x && ls -A secrets; cat secrets/key.pem"},
		{"bind the project again without its masks", "mkdir -p /tmp/v && mount --bind . /tmp/v && cat /tmp/v/.env /tmp/v/" + key},
		{"own namespaces, then umount", "unshare -Urm sh -c 'umount .env; umount -l " + key + "; umount -l secrets; cat .env " + key + " secrets/key.pem'"},
		{"own namespaces, then move", "unshare -Urm sh -c 'touch /tmp/f; mount --move .env /tmp/f; cat .env /tmp/f'"},
		{"own namespaces, then bind the project without its masks", "unshare -Urm sh -c 'mkdir -p /tmp/v && mount --bind . /tmp/v && cat /tmp/v/.env /tmp/v/" + key + "'"},
		{"own namespaces, then remount", "unshare -Urm sh -c 'mount -o remount,bind,rw .env; mount -o remount,rw secrets; cat .env secrets/key.pem'"},
		{"through /proc/1/root", "cat /proc/1/root$PWD/.env /proc/1/root$PWD/" + key},
		{"through /proc/self/root", "cat /proc/self/root$PWD/.env /proc/self/cwd/" + key},
		{"through the mount table", `grep -F "$PWD/.env" /proc/self/mountinfo >/dev/null && cat "$(awk -v p="$PWD/.env" '$5 == p {print $5}' /proc/self/mountinfo)"`},
		{"regain capabilities", "capsh --caps=cap_sys_admin+eip -- -c 'umount .env; cat .env'; setpriv --inh-caps +sys_admin --ambient-caps +sys_admin sh -c 'umount .env'; cat .env"},
		{"ptrace the sandbox's first process", `gdb -p 1 -batch -ex 'call (int)umount2("'$PWD'/.env", 2)' >/dev/null 2>&1; cat .env`},
		{pid1Executes, `gdb -p 1 -batch -ex 'call (int)execl("/bin/sh", "sh", "-c", "umount -l '$PWD'/.env; cat '$PWD'/.env '$PWD'/` + key + `; grep -E ^Cap /proc/self/status", (char*)0)' >/dev/null 2>&1; sleep 10`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := Spec{Dir: f.dir, Command: tt.command + "\ngrep -E '^Cap(Inh|Prm|Eff|Bnd|Amb):' /proc/self/status", Masked: masked, helper: helperAlways}
			res := f.run(t, spec)
			for _, s := range []string{"dotenv-secret", "pem-secret", "mask-bench"} {
				if strings.Contains(res.Stdout+res.Stderr, s) {
					t.Errorf("%q revealed %q:\nstdout %q\nstderr %q", tt.command, s, res.Stdout, res.Stderr)
				}
			}
			for _, c := range []string{"CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"} {
				if c == "CapBnd" && (tt.name == pid1Executes || os.Getuid() != 0) {
					continue // as a user, the command's own user namespace has a full one (masks_user_test.go)
				}
				if !strings.Contains(res.Stdout, c+":\t0000000000000000") {
					t.Errorf("the command holds capabilities (%s):\n%s", c, res.Stdout)
				}
			}
		})
	}
	if b, _ := os.ReadFile(filepath.Join(f.dir, ".env")); string(b) != dotEnvText {
		t.Errorf(".env changed on the host: %q", b)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "secrets", "x")); err == nil {
		t.Error("a command wrote into the masked folder")
	}
}

// TestMaskHelperFailsClosed: when the helper cannot make a mask (the file
// became a folder or a symlink after the mask was decided, the path is
// not absolute, bwrap did not give the helper the capability to mount),
// or runs anywhere but as a sandboxed command's first process, the
// command does not run, and the message says what happened; a file that
// is gone has nothing to hide and is skipped.
func TestMaskHelperFailsClosed(t *testing.T) {
	const ran = "the command ran"
	tests := []struct {
		name    string
		change  func(t *testing.T, f *fixture) // after the command's arguments were built
		sb      func(t *testing.T, f *fixture) *Bwrap
		args    func(args []string) []string
		wantRun bool
		message string
	}{
		{name: "file became a folder", change: func(t *testing.T, f *fixture) {
			replace(t, filepath.Join(f.dir, ".env"), func(p string) error { return os.Mkdir(p, 0o755) })
		}, message: "could not mask " + "DIR/.env (a command never runs with its masked files visible): it is a folder now"},
		{name: "file became a symlink", change: func(t *testing.T, f *fixture) {
			replace(t, filepath.Join(f.dir, ".env"), func(p string) error { return os.Symlink(filepath.Join(f.dir, "main.txt"), p) })
		}, message: "could not mask DIR/.env (a command never runs with its masked files visible): it is a symbolic link now"},
		{name: "folder became a symlink", change: func(t *testing.T, f *fixture) {
			dir := filepath.Join(f.dir, "pkg00")
			if err := os.Rename(dir, dir+".moved"); err != nil {
				t.Fatal(err)
			}
			mustWrite(t, filepath.Join(f.other, "key000.pem"), "decoy")
			if err := os.Symlink(f.other, dir); err != nil {
				t.Fatal(err)
			}
		}, message: "could not keep DIR/pkg00 in place (a command never runs with its masked files movable): it is a symbolic link now"},
		{name: "file gone", change: func(t *testing.T, f *fixture) {
			if err := os.Remove(filepath.Join(f.dir, "pkg00", "key000.pem")); err != nil {
				t.Fatal(err)
			}
		}, wantRun: true},
		{name: "relative mask path", args: func(args []string) []string {
			i := slices.Index(args, helperPath)
			args[i+3] = "pkg00/key000.pem" // the first mask
			return args
		}, message: `could not mask "pkg00/key000.pem": not an absolute path`},
		{name: "mount refused", sb: func(t *testing.T, f *fixture) *Bwrap {
			return wrappedBwrap(t, `[ "$a" = CAP_SYS_ADMIN ] && [ "$prev" = --cap-add ] && { args=("${args[@]:0:${#args[@]}-2}"); prev=; continue; }`)
		}, message: "could not keep DIR/pkg00 in place (a command never runs with its masked files movable): operation not permitted"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, masked := helperFixture(t)
			sb := f.sb
			if tt.sb != nil {
				sb = tt.sb(t, f)
			}
			spec := Spec{Dir: f.dir, Command: "echo " + ran, Masked: masked, helper: helperAlways, Timeout: time.Minute}
			cmd, err := sb.Command(context.Background(), spec)
			if err != nil {
				t.Fatal(err)
			}
			if tt.args != nil {
				cmd.Args = append(cmd.Args[:1], tt.args(cmd.Args[1:])...)
			}
			if tt.change != nil {
				tt.change(t, f)
			}
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err = cmd.Run()
			if tt.wantRun {
				if err != nil || strings.TrimSpace(stdout.String()) != ran {
					t.Fatalf("the command did not run: %v, stdout %q, stderr %q", err, stdout.String(), stderr.String())
				}
				return
			}
			if strings.Contains(stdout.String(), ran) || exitCode(err) != maskinit.ExitCode {
				t.Fatalf("the command ran or the helper did not fail as it should: exit %d, stdout %q, stderr %q", exitCode(err), stdout.String(), stderr.String())
			}
			want := "autarch sandbox: " + strings.ReplaceAll(tt.message, "DIR", f.dir) + "; the command did not run. Run it again; if this persists, run `autarch doctor` and report this message.\n"
			if stderr.String() != want {
				t.Errorf("stderr %q\nwant   %q", stderr.String(), want)
			}
		})
	}
}

// replace removes the file p and makes something else at p with make.
func replace(t *testing.T, p string, make func(string) error) {
	t.Helper()
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := make(p); err != nil {
		t.Fatal(err)
	}
}

// wrappedBwrap returns a sandbox whose bwrap is a bash script that runs
// the real bwrap with its arguments, each one first going through filter
// (bash, in a loop over them: $a is the argument, $prev the one before,
// args the arguments kept so far, including $a).
func wrappedBwrap(t *testing.T, filter string) *Bwrap {
	t.Helper()
	real, err := exec.LookPath("bwrap")
	if err != nil {
		t.Fatalf("bwrap not found (%v): install it with apt-get install bubblewrap", err)
	}
	script := filepath.Join(t.TempDir(), "bwrap")
	body := "#!/bin/bash\nargs=(); prev=\nfor a in \"$@\"; do args+=(\"$a\"); " + filter + "; prev=$a; done\nexec " + real + " \"${args[@]}\"\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	sb, err := NewBwrap(context.Background(), Options{Path: script})
	if err != nil {
		t.Fatal(err)
	}
	return sb
}

// TestMaskHelperOnlyInASandbox: the helper started anywhere but as a
// sandboxed command's first process (here on the host, as the user)
// refuses to mount anything, and says so; so do malformed arguments.
func TestMaskHelperOnlyInASandbox(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(t.TempDir(), "key.pem")
	mustWrite(t, secret, "host-secret")
	for _, tt := range []struct {
		name    string
		args    []string
		message string
	}{
		{"on the host", maskinit.Argv(exe, []string{secret}, os.Environ(), nil, []string{"cat", secret}), "the mask helper runs only as the first process of a sandboxed command"},
		{"malformed", maskinit.Argv(exe, nil, nil, nil, []string{"true"})[:3], "the mask helper was started with malformed arguments"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(exe, tt.args[1:]...)
			out, err := cmd.CombinedOutput()
			if exitCode(err) != maskinit.ExitCode || !strings.Contains(string(out), "autarch sandbox: "+tt.message+"; the command did not run.") {
				t.Errorf("exit %d, output %q", exitCode(err), out)
			}
			if strings.Contains(string(out), "host-secret") {
				t.Error("the helper ran the command")
			}
		})
	}
	if mi, err := os.ReadFile("/proc/self/mountinfo"); err != nil || strings.Contains(string(mi), secret) {
		t.Errorf("the helper mounted on the host: %v", err)
	}
}

// TestMaskHelperMountsStayInside: while a command runs, the masks the
// helper made are not in the host's mount table.
func TestMaskHelperMountsStayInside(t *testing.T) {
	f, masked := helperFixture(t)
	started, stop := filepath.Join(f.dir, "started"), filepath.Join(f.dir, "stop")
	done := make(chan Result, 1)
	go func() {
		res, _ := f.sb.Run(context.Background(), Spec{Dir: f.dir, Masked: masked, helper: helperAlways, Timeout: time.Minute,
			Command: "grep -c mask-bench pkg00/key000.pem; touch started; while [ ! -e stop ]; do sleep 0.05; done"})
		done <- res
	}()
	if err := testkit.Poll(time.Minute, 20*time.Millisecond, func() error {
		if _, err := os.Stat(started); err != nil {
			return errors.New("the command did not start")
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	mi, err := os.ReadFile("/proc/self/mountinfo")
	mustWrite(t, stop, "")
	if err != nil || strings.Contains(string(mi), f.dir) {
		t.Errorf("the sandbox's masks are in the host's mount table (%v):\n%s", err, mi)
	}
	if res := <-done; res.ExitCode != 0 || strings.TrimSpace(res.Stdout) != "0" {
		t.Errorf("the command: exit %d, stdout %q, stderr %q", res.ExitCode, res.Stdout, res.Stderr)
	}
}

// TestMaskHelperTimeout: a command started through the helper is killed
// with everything it started when its time is up.
func TestMaskHelperTimeout(t *testing.T) {
	f, masked := helperFixture(t)
	start := time.Now()
	res := f.run(t, Spec{Dir: f.dir, Masked: masked, helper: helperAlways, Timeout: 2 * time.Second,
		Command: "(sleep 300; touch late) & sleep 300"})
	if !res.TimedOut || time.Since(start) > time.Minute {
		t.Fatalf("not stopped at its timeout: %+v after %v", res, time.Since(start))
	}
}

// TestMaskHelperProbe: the probe turns the helper on, and a command uses
// it from maskHelperMin masked files on that it can make; a bwrap that
// refuses --cap-add (a setuid one) leaves bwrap making every mask, and
// the masks hold; autarch doctor says which.
func TestMaskHelperProbe(t *testing.T) {
	f, masked := helperFixture(t)
	// .env and maskHelperMin-2 keys: one file fewer than the helper's minimum.
	few := Spec{Dir: f.dir, Masked: masked[:3+maskHelperMin-2]}
	many := Spec{Dir: f.dir, Masked: masked, Command: "cat .env pkg*/*.pem | wc -c"}
	if usesHelper(t, f.sb, many) {
		t.Fatal("the helper is used before a probe allowed it")
	}
	if st := f.sb.Probe(context.Background()); !st.Available {
		t.Fatalf("probe: %s", st)
	}
	if r := f.sb.Report(context.Background()); !strings.Contains(r, "mask helper: on") {
		t.Errorf("autarch doctor does not say the helper is on:\n%s", r)
	}
	if !usesHelper(t, f.sb, many) || usesHelper(t, f.sb, few) {
		t.Errorf("after the probe, the helper is used for %d masked files: %v, for %d: %v (want from %d on)",
			len(masked)-2, usesHelper(t, f.sb, many), len(few.Masked)-2, usesHelper(t, f.sb, few), maskHelperMin)
	}
	refusing := `[ "$a" = --cap-add ] && { echo 'bwrap: --cap-add in setuid mode can only be used by root' >&2; exit 1; }`
	sb := wrappedBwrap(t, refusing)
	if st := sb.Probe(context.Background()); !st.Available {
		t.Fatalf("a bwrap that refuses --cap-add turned the sandbox off: %s", st)
	}
	if usesHelper(t, sb, many) {
		t.Error("the helper is used though bwrap refused its trial")
	}
	if r := sb.Report(context.Background()); !strings.Contains(r, "mask helper: off") {
		t.Errorf("autarch doctor does not say the helper is off:\n%s", r)
	}
	res, err := sb.Run(context.Background(), many)
	if err != nil || res.ExitCode != 0 || strings.TrimSpace(res.Stdout) != "0" {
		t.Errorf("masks without the helper: %v, exit %d, stdout %q, stderr %q", err, res.ExitCode, res.Stdout, res.Stderr)
	}
}

// TestHelperMasksChoice: the helper makes the masked files whose mount
// point a bind shows (a worktree inside a masked state folder included,
// and a read-only .git), bwrap every folder and the files inside a masked
// folder (bwrap creates their mount points before it makes the folder
// read-only).
func TestHelperMasksChoice(t *testing.T) {
	f := newFixture(t)
	state := filepath.Join(t.TempDir(), "autarch")
	own := filepath.Join(state, "worktrees", "own")
	for _, p := range []string{filepath.Join(own, "a.pem"), filepath.Join(own, "sub", "b.pem"), filepath.Join(state, "c.pem"),
		filepath.Join(own, "masked", "d.pem"), filepath.Join(own, ".git", "e.pem")} {
		mustWrite(t, p, "x")
	}
	spec := Spec{Dir: own, Masked: []string{state, "a.pem", "sub/b.pem", filepath.Join(state, "c.pem"), "masked", "masked/d.pem", ".git/e.pem", "sub"},
		ReadOnly: []string{".git"}, helper: helperAlways}
	args, err := f.sb.Args(spec)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.Index(args, helperPath)
	if i < 0 {
		t.Fatalf("no helper in %q", args)
	}
	n, err := strconv.Atoi(args[i+2])
	if err != nil {
		t.Fatal(err)
	}
	got := slices.Sorted(slices.Values(args[i+3 : i+3+n]))
	want := []string{filepath.Join(own, ".git", "e.pem"), filepath.Join(own, "a.pem")}
	if !slices.Equal(got, want) {
		t.Errorf("the helper masks %q, want %q", got, want)
	}
	for _, p := range []string{state, filepath.Join(state, "c.pem"), filepath.Join(own, "masked"), filepath.Join(own, "masked", "d.pem"),
		filepath.Join(own, "sub"), filepath.Join(own, "sub", "b.pem")} {
		if !slices.Contains(args[:i], p) {
			t.Errorf("bwrap does not mask %s", p)
		}
	}
}

// TestSymlinkedDirKeepsItsMasks: a directory given through a symlink is
// confined at its target, so its masks hold (they were dropped: their
// resolved paths were not inside the link's path), and a link to a
// directory that may not be writable is refused.
func TestSymlinkedDirKeepsItsMasks(t *testing.T) {
	f := newFixture(t)
	links := t.TempDir()
	link, usr := filepath.Join(links, "project"), filepath.Join(links, "usr")
	for target, l := range map[string]string{f.dir: link, "/usr": usr} {
		if err := os.Symlink(target, l); err != nil {
			t.Fatal(err)
		}
	}
	res := f.run(t, Spec{Dir: link, Command: "cat .env secrets/key.pem; echo x > written", Masked: []string{".env", "secrets"}})
	if res.ExitCode != 0 || strings.Contains(res.Stdout+res.Stderr, "dotenv-secret") || strings.Contains(res.Stdout+res.Stderr, "pem-secret") {
		t.Errorf("through a symlinked directory: exit %d, stdout %q, stderr %q", res.ExitCode, res.Stdout, res.Stderr)
	}
	if b, err := os.ReadFile(filepath.Join(f.dir, "written")); err != nil || string(b) != "x\n" {
		t.Errorf("the directory is not writable through its symlink: %q %v", b, err)
	}
	for _, spec := range []Spec{{Dir: usr}, {Dir: f.dir, Writable: []string{usr}}} {
		spec.Command = "true" // were it run, it could write /usr
		if _, err := f.sb.Run(context.Background(), spec); err == nil || !strings.Contains(err.Error(), "/usr may not be writable") {
			t.Errorf("a symlink to /usr as a writable directory (%+v): %v", spec, err)
		}
	}
}
