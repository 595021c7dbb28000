package sandbox

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The mask helper as a user other than root: bwrap runs it as root of the
// sandbox's only user namespace, and it starts the command, as the user,
// in a user namespace of its own (masks.go helperArgs, maskinit.runAs).
// CI runs as root: TestMaskHelperAsUser runs the key tests again as
// nobody.

// nobody is the user TestMaskHelperAsUser runs as.
const nobody = 65534

// TestMaskHelperAsUser runs the mask helper's key tests as nobody (setpriv), with a home
// and temporary folder of its own: the helper must be on after the probe
// and every one of them pass.
func TestMaskHelperAsUser(t *testing.T) {
	// The probe turns the helper on, and through it the command sees what
	// it sees under bwrap's masks, cannot undo a mask, never runs when a
	// mask fails, and ends as it would have.
	asUserTests := []string{"TestMaskHelperProbe", "TestMaskHelperSameView", "TestMaskHelperAttacks",
		"TestMaskHelperFailsClosed", "TestMaskHelperTimeout", "TestMaskHelperUserView", "TestMaskHelperEndsAsTheCommand", "TestMaskHelperProbeRefusingUID"}
	if os.Getuid() != 0 {
		t.Skip("runs as root only: it runs the mask helper's tests again as another user")
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Skipf("setpriv not found (%v): cannot run the mask helper's tests as a user other than root; install util-linux", err)
	}
	home, err := os.MkdirTemp("", "autarch-masks-user-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	if err := os.Chmod(home, 0o755); err != nil {
		t.Fatal(err)
	}
	// The test binary, where nobody may execute it.
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(home, "sandbox.test")
	copyFile(t, self, bin, 0o755)
	if err := os.Chown(home, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(setpriv, "--reuid", fmt.Sprint(nobody), "--regid", fmt.Sprint(nobody), "--clear-groups",
		bin, "-test.run", "^("+strings.Join(asUserTests, "|")+")$", "-test.v", "-test.count=1")
	cmd.Dir = home
	cmd.Env = []string{"HOME=" + home, "TMPDIR=" + home, "PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("as uid %d: %v\n%s", nobody, err, out)
	}
	for _, name := range asUserTests {
		if !strings.Contains(string(out), "--- PASS: "+name+" ") {
			t.Errorf("as uid %d, %s did not pass:\n%s", nobody, name, out)
		}
	}
}

// copyFile copies the file from to to, with mode.
func copyFile(t *testing.T, from, to string, mode os.FileMode) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// userViews returns what TestMaskHelperSameView compares, and what the
// command must see through the helper, as a user: the views without the
// three differences, each checked here. In its own user namespace the
// command's bounding set is full (with no capability permitted, effective,
// inheritable or ambient, and no_new_privs: nothing can fill them); the
// helper is its parent (its id is the next free one after the helper's
// threads); and RLIMIT_NPROC, counted from the user's tasks when the
// command starts, counts the helper's too.
func userViews(t *testing.T, bw, helper string, wants []string) (string, string, []string) {
	t.Helper()
	if !strings.Contains(bw, "\npid 2 ppid 1\n") {
		t.Errorf("under bwrap's masks the command is not process 2, child of 1:\n%s", bw)
	}
	if !regexp.MustCompile(`\npid [0-9]+ ppid 2\n`).MatchString(helper) {
		t.Errorf("through the helper the command is not its child (process 2):\n%s", helper)
	}
	wants = slices.DeleteFunc(slices.Clone(wants), func(w string) bool {
		return w == "CapBnd:\t0000000000000000" || w == "pid 2 ppid 1"
	})
	ids := fmt.Sprintf("\t%d\t%d\t%d\t%d\n", os.Getuid(), os.Getuid(), os.Getuid(), os.Getuid())
	wants = append(wants, "CapInh:\t0000000000000000", "CapPrm:\t0000000000000000", "Uid:"+ids,
		fmt.Sprintf("Gid:\t%d\t%d\t%d\t%d\n", os.Getgid(), os.Getgid(), os.Getgid(), os.Getgid()))
	differ := regexp.MustCompile(`(?m)^(CapBnd:.*|pid [0-9]+ ppid [0-9]+|max user processes .*)\n`)
	return differ.ReplaceAllString(bw, ""), differ.ReplaceAllString(helper, ""), wants
}

// userScript prints who the command and its children are and what they
// hold: ids, their maps, file owners, capabilities, the sandbox's first
// process.
const userScript = `id -u; id -g; cat /proc/self/uid_map /proc/self/gid_map
stat -c '%u:%g %U' main.txt /usr
echo "home $HOME"; cat /proc/1/comm
caps='^Cap(Inh|Prm|Eff|Amb)'
grep -E "$caps" /proc/self/status | sed 's/^/self /'
sh -c 'grep -E "$1" /proc/self/status' sh "$caps" | sed 's/^/child /'
(grep -E "$caps" /proc/self/status | sed 's/^/background /') & wait
unshare -U sh -c 'grep -E "$1" /proc/self/status' sh "$caps" 2>/dev/null | sed 's/^/unshared /'
`

// TestMaskHelperUserView: through the helper, the command and every
// process it starts run as the user (as root, root), with the same ids,
// id maps and file owners as under bwrap's own masks, and hold no
// capability; in a user namespace it makes itself it is not root.
func TestMaskHelperUserView(t *testing.T) {
	f, masked := helperFixture(t)
	out := map[helperMode]Result{}
	for _, mode := range []helperMode{helperNever, helperAlways} {
		res := f.run(t, Spec{Dir: f.dir, Command: userScript, Masked: masked, helper: mode})
		if res.ExitCode != 0 {
			t.Fatalf("mode %d: exit %d, stderr %q", mode, res.ExitCode, res.Stderr)
		}
		out[mode] = res
	}
	bw, helper := out[helperNever].Stdout, out[helperAlways].Stdout
	if bw != helper {
		t.Errorf("the command and its children are someone else through the helper:\n%s", diffLines(bw, helper))
	}
	if !strings.HasPrefix(helper, fmt.Sprintf("%d\n%d\n", os.Getuid(), os.Getgid())) || !strings.Contains(helper, "\nbwrap\n") {
		t.Errorf("through the helper the command is not the user, or the sandbox's first process is not bwrap's:\n%s", helper)
	}
	for _, who := range []string{"self", "child", "background", "unshared"} {
		for _, c := range []string{"CapInh", "CapPrm", "CapEff", "CapAmb"} {
			if !strings.Contains(helper, who+" "+c+":\t0000000000000000\n") {
				t.Errorf("%s holds capabilities (%s), or did not run:\n%s", who, c, helper)
			}
		}
	}
}

// TestMaskHelperEndsAsTheCommand: a command that exits, or is killed by a
// signal (one the Go runtime would otherwise handle itself included), gives
// the same Result through the helper as under bwrap's masks.
func TestMaskHelperEndsAsTheCommand(t *testing.T) {
	f, masked := helperFixture(t)
	for _, command := range []string{"echo out; exit 7", "echo out; kill -KILL $$", "echo out; kill -TERM $$",
		"echo out; kill -QUIT $$", "echo out; kill -SEGV $$", "echo out; kill -USR1 $$", "echo out; kill -INT $$",
		"exec 2>/dev/null; sh -c 'kill -KILL $$'; echo child $?"} {
		t.Run(command, func(t *testing.T) {
			var got [2]Result
			for i, mode := range []helperMode{helperNever, helperAlways} {
				got[i] = f.run(t, Spec{Dir: f.dir, Command: command, Masked: masked, helper: mode})
				got[i].Duration = 0
			}
			if got[0] != got[1] {
				t.Errorf("under bwrap's masks %+v\nthrough the helper %+v", got[0], got[1])
			}
		})
	}
}

// TestMaskHelperProbeRefusingUID: a bwrap that refuses --uid leaves, for
// a user, bwrap making every mask, and the masks hold; root's helper does
// without --uid and stays on.
func TestMaskHelperProbeRefusingUID(t *testing.T) {
	f, masked := helperFixture(t)
	many := Spec{Dir: f.dir, Masked: masked, Command: "cat .env pkg*/*.pem | wc -c"}
	sb := wrappedBwrap(t, `[ "$a" = --uid ] && { echo 'bwrap: --uid is not supported' >&2; exit 1; }`)
	if st := sb.Probe(context.Background()); !st.Available {
		t.Fatalf("a bwrap that refuses --uid turned the sandbox off: %s", st)
	}
	if on := usesHelper(t, sb, many); on != (os.Getuid() == 0) {
		t.Errorf("as uid %d, the helper is used: %v", os.Getuid(), on)
	}
	res, err := sb.Run(context.Background(), many)
	if err != nil || res.ExitCode != 0 || strings.TrimSpace(res.Stdout) != "0" {
		t.Errorf("masks: %v, exit %d, stdout %q, stderr %q", err, res.ExitCode, res.Stdout, res.Stderr)
	}
}
