package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/autarch-dev/autarch/internal/testkit"
)

// TestNothingOutlivesTheCommand: a command that ends normally (not at its
// timeout) leaves nothing running that could write the tree after the
// host looked at it (the tree watch's journal, the next mask decision):
// background jobs, a new session, a job ignoring TERM and HUP, a double
// fork; through bwrap's masks and through the helper alike.
func TestNothingOutlivesTheCommand(t *testing.T) {
	for _, mode := range []helperMode{helperNever, helperAlways} {
		t.Run(map[helperMode]string{helperNever: "bwrap", helperAlways: "helper"}[mode], func(t *testing.T) {
			f, masked := helperFixture(t)
			marker := fmt.Sprintf("%d", 800000+time.Now().UnixNano()%99999)
			late := filepath.Join(f.dir, "late")
			job := "sleep " + marker + "; echo late > " + late
			res := f.run(t, Spec{Masked: masked, helper: mode,
				Command: "setsid sh -c '" + job + "' & (trap '' TERM HUP; sh -c '" + job + "') & nohup sh -c '" + job + "' >/dev/null 2>&1 & disown -a; " +
					"sh -c '(sh -c \"" + job + "\" &) &'; exit 0"})
			if res.ExitCode != 0 || res.TimedOut {
				t.Fatalf("exit %d, timed out %v, stderr %q", res.ExitCode, res.TimedOut, res.Stderr)
			}
			testkit.CheckFor(t, 3*time.Second, 50*time.Millisecond, func() error {
				if pids := processesWith("sleep\x00" + marker + "\x00"); len(pids) > 0 {
					return fmt.Errorf("processes outlived the command: %v", pids)
				}
				if _, err := os.Stat(late); !errors.Is(err, os.ErrNotExist) {
					return fmt.Errorf("a process wrote the tree after the command ended: %v", err)
				}
				return nil
			})
		})
	}
}
