package testkit

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/autarch-dev/autarch/agent/scripted"
)

// Attack is the world of a whole-run attack test: hostile secrets in the
// environment (scripted.HostileEnv), an empty trust store of the user's
// own, and a marker file a planted program would create on the host.
type Attack struct {
	// Secrets maps where each secret lives to its value.
	Secrets map[string]string
	// TrustFile is the user's trust store (AUTARCH_TRUST_FILE), empty.
	TrustFile string
	// Marker is the path a planted program would create if it ran on
	// the host.
	Marker string
}

// NewAttack sets up an attack's world; it skips the test where
// bubblewrap is missing (the sandbox is part of what is attacked).
func NewAttack(t *testing.T) Attack {
	t.Helper()
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("bubblewrap is not installed (apt-get install bubblewrap)")
	}
	a := Attack{Secrets: scripted.HostileEnv(t), TrustFile: filepath.Join(t.TempDir(), "trusted.json"),
		Marker: filepath.Join(t.TempDir(), "planted-program-ran")}
	if err := os.WriteFile(a.TrustFile, []byte(`{"repositories":{}}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AUTARCH_TRUST_FILE", a.TrustFile)
	return a
}
