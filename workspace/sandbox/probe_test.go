package sandbox

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// slowBwrap puts a bwrap on PATH that answers --version and the probe's
// trial late (sleeping 12 s: longer than the probe's limit, and than the
// 10 s that once killed `bwrap --version` under load, the first `slow`
// times each, or always when slow < 0) and runs every other command with
// the real bwrap at once: a machine too busy to start a process in time.
func slowBwrap(t *testing.T, slow int) {
	t.Helper()
	real, err := exec.LookPath("bwrap")
	if err != nil {
		t.Fatalf("bwrap not found (%v): install it with apt-get install bubblewrap", err)
	}
	dir := t.TempDir()
	script := `#!/bin/sh
state=` + dir + `
case "$*" in
*--version*) kind=version ;;
*autarch-sandbox-probe-*) kind=probe ;;
*) exec ` + real + ` "$@" ;;
esac
n=$(cat "$state/$kind" 2>/dev/null || echo 0)
echo $((n + 1)) > "$state/$kind"
if [ ` + itoa(slow) + ` -lt 0 ] || [ "$n" -lt ` + itoa(slow) + ` ]; then sleep 12; fi
exec ` + real + ` "$@"
`
	if err := os.WriteFile(filepath.Join(dir, "bwrap"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
}

func itoa(n int) string {
	if n < 0 {
		return "-1"
	}
	return string(rune('0' + n))
}

// TestSlowProbeKeepsTheSandbox: a bwrap too slow for the probe's limit
// never turns the sandbox off: the probe tries again, and when the trial
// never finishes in time, bubblewrap is still used and commands run
// confined.
func TestSlowProbeKeepsTheSandbox(t *testing.T) {
	for _, tc := range []struct {
		name string
		slow int
		note bool
	}{
		{"slow once", 1, false},
		{"always slow", -1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			slowBwrap(t, tc.slow)
			work := t.TempDir()
			sb, st, err := Select(context.Background(), Options{ProbeTimeout: time.Second}, false)
			if err != nil {
				t.Fatalf("a slow bwrap turned the sandbox off: %v", err)
			}
			if !sb.Confined() || !st.Available {
				t.Fatalf("sandbox %s, status %s: want bubblewrap, available", sb.Name(), st)
			}
			if (st.Note != "") != tc.note {
				t.Errorf("status note %q, want a note: %v", st.Note, tc.note)
			}
			if tc.slow > 0 && !strings.HasPrefix(st.Version, "bubblewrap ") {
				t.Errorf("version %q after a retry, want bwrap's own", st.Version)
			}
			res, err := sb.Run(context.Background(), Spec{Dir: work, Command: "echo confined > out.txt && cat out.txt", Timeout: time.Minute})
			if err != nil || res.ExitCode != 0 || strings.TrimSpace(res.Stdout) != "confined" {
				t.Fatalf("a command after the slow probe: %v, exit %d, stdout %q, stderr %q", err, res.ExitCode, res.Stdout, res.Stderr)
			}
		})
	}
}

// TestRefusingBwrapIsAFailure: a bwrap that refuses the trial is reported
// with what to do, never retried into success.
func TestRefusingBwrapIsAFailure(t *testing.T) {
	dir := t.TempDir()
	script := "#!/bin/sh\ncase \"$*\" in *--version*) echo 'bubblewrap 0.8.0'; exit 0 ;; esac\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n"
	if err := os.WriteFile(filepath.Join(dir, "bwrap"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	_, st, err := Select(context.Background(), Options{ProbeTimeout: time.Second}, false)
	if err == nil || st.Available {
		t.Fatalf("a refusing bwrap was taken: status %s", st)
	}
	if !strings.Contains(st.Reason, "user namespaces are refused") || !strings.Contains(st.String(), "Permission denied") {
		t.Errorf("status %q does not say what failed and what to do", st)
	}
}
