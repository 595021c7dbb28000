package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autarch-dev/autarch/internal/testkit"
	"github.com/autarch-dev/autarch/workspace/sandbox/internal/maskinit"
)

// TestMaskHelperPinsFolders: a masked file is a mount point, so a command
// cannot move it; through the helper, neither can it move a folder that
// holds one (into a folder the host's mask walk skips, over another
// file's verdict, or away while another command's sandbox starts), even in
// namespaces of its own or by removing the folder. Everything else in
// those folders stays writable and movable.
func TestMaskHelperPinsFolders(t *testing.T) {
	f, masked := helperFixture(t)
	mustWrite(t, filepath.Join(f.dir, "deep", "a", "b", "key.pem"), "-----BEGIN PRIVATE KEY----- deep-secret\n")
	masked = append(masked, "deep/a/b/key.pem")
	tests := []struct{ name, command string }{
		{"move a folder", "mv -T pkg00 moved"},
		{"move it into a skipped folder", "mkdir -p node_modules && mv pkg01 node_modules/"},
		{"move a folder above", "mv -T deep/a deep/z; mv -T deep moved; mv -T deep/a/b deep/a/c"},
		{"swap two folders", "mv -T pkg02 tmp && mv -T pkg03 pkg02 && mv -T tmp pkg03"},
		{"remove it", "rm -rf pkg04 deep"},
		{"own namespaces, then move", "unshare -Urm sh -c 'mv -T pkg05 moved; umount pkg05; umount -l pkg05; mv -T pkg05 moved'"},
		{"through /proc/self/cwd", "mv -T /proc/self/cwd/pkg06 /proc/self/cwd/moved"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := f.run(t, Spec{Dir: f.dir, Masked: masked, helper: helperAlways, Command: tt.command + "; true"})
			if res.ExitCode != 0 {
				t.Fatalf("exit %d, stderr %q", res.ExitCode, res.Stderr)
			}
			for _, m := range masked[3:] {
				if b, err := os.ReadFile(filepath.Join(f.dir, m)); err != nil || !strings.Contains(string(b), "PRIVATE KEY") {
					t.Errorf("%q moved the masked file %s (%v) out of its place", tt.command, m, err)
				}
			}
		})
	}
	// Files and folders beside the masked ones stay the command's own.
	res := f.run(t, Spec{Dir: f.dir, Masked: masked, helper: helperAlways,
		Command: "touch pkg07/new && mv pkg07/new pkg07/new2 && mkdir pkg07/d && mv -T pkg07/d pkg07/e && rm -r pkg07/e pkg07/new2 && mkdir x && mv -T x y && echo ok"})
	if strings.TrimSpace(res.Stdout) != "ok" {
		t.Errorf("writing beside masked files: exit %d, stdout %q, stderr %q", res.ExitCode, res.Stdout, res.Stderr)
	}
}

// TestMaskHelperRaceByConcurrentCommand: a command running while another
// command of the same tree starts (two test sub-agents dispatched in
// parallel) moves the folder of a file masked in both back and forth. The
// second command's masks were decided on the host (here: wherever the
// secret is now) and are made by path a few milliseconds later: had the
// folder moved meanwhile, the secret would be readable at its other name.
// Through the helper the first command cannot move it. (bwrap's own masks
// do not pin folders: /work/briefs/s9/redteam/01.)
func TestMaskHelperRaceByConcurrentCommand(t *testing.T) {
	const secret = "race-secret-0042"
	f, masked := helperFixture(t)
	mustWrite(t, filepath.Join(f.dir, "conf", "id.pem"), "-----BEGIN PRIVATE KEY----- "+secret+"\n")
	where := func() []string { // as the host decides: every file that holds the secret now
		var out []string
		_ = filepath.WalkDir(f.dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), secret) {
					out = append(out, p)
				}
			}
			return nil
		})
		return out
	}
	started, stop := filepath.Join(f.dir, "started"), filepath.Join(f.dir, "stop")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	mover := make(chan Result, 1)
	go func() {
		res, _ := f.sb.Run(ctx, Spec{Dir: f.dir, Masked: append(masked, where()...), helper: helperAlways, Timeout: 2 * time.Minute,
			Command: "touch started; while [ ! -e stop ]; do mv -T conf conf2 2>/dev/null; mv -T conf2 conf 2>/dev/null; done"})
		mover <- res
	}()
	if err := testkit.Poll(time.Minute, 10*time.Millisecond, func() error {
		if _, err := os.Stat(started); err != nil {
			return errors.New("the first command did not start")
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	leaked := 0
	for i := 0; i < 40 && leaked == 0; i++ {
		res := f.run(t, Spec{Dir: f.dir, Masked: append(masked, where()...), helper: helperAlways,
			Command: "cat $(find . -name id.pem) 2>/dev/null; true"})
		if strings.Contains(res.Stdout, secret) {
			leaked = i + 1
		}
	}
	mustWrite(t, stop, "")
	<-mover
	if leaked > 0 {
		t.Errorf("a command read a masked file that another command moved while its sandbox started (attempt %d)", leaked)
	}
}

// TestMaskHelperFailsClosedWithoutPins: with nothing to pin (every masked
// file at the tree's top), a refused mount of a file still stops the
// command (TestMaskHelperFailsClosed's "mount refused" now meets a pin
// first).
func TestMaskHelperFailsClosedWithoutPins(t *testing.T) {
	f := newFixture(t)
	masked := []string{".env"}
	for i := range maskHelperMin {
		p := fmt.Sprintf("k%02d.pem", i)
		mustWrite(t, filepath.Join(f.dir, p), "-----BEGIN PRIVATE KEY----- top\n")
		masked = append(masked, p)
	}
	sb := wrappedBwrap(t, `[ "$a" = CAP_SYS_ADMIN ] && [ "$prev" = --cap-add ] && { args=("${args[@]:0:${#args[@]}-2}"); prev=; continue; }`)
	res, err := sb.Run(context.Background(), Spec{Dir: f.dir, Masked: masked, helper: helperAlways, Timeout: time.Minute, Command: "echo ran; cat .env"})
	if err != nil {
		t.Fatal(err)
	}
	want := "autarch sandbox: could not mask " + filepath.Join(f.dir, ".env") + " (a command never runs with its masked files visible): operation not permitted"
	if res.ExitCode != maskinit.ExitCode || strings.Contains(res.Stdout, "ran") || !strings.HasPrefix(res.Stderr, want) {
		t.Errorf("exit %d, stdout %q, stderr %q; want the helper to stop with %q", res.ExitCode, res.Stdout, res.Stderr, want)
	}
}
