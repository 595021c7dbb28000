package testkit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ReadScript reads an attack's script (a testdata file) with its
// placeholders filled in: @MARKER@ by the marker's path, @SECRET@ by the
// secret of the committed .env.
func (a Attack) ReadScript(t *testing.T, path string) string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.NewReplacer("@MARKER@", a.Marker, "@SECRET@", a.Secrets["committed .env"]).Replace(string(raw))
}

// PlantNATSAuth writes the swarm's NATS credentials into Autarch's state
// directory stateDir, as package swarm writes them: their password is the
// secret "NATS password", which no request to the model may carry.
func (a Attack) PlantNATSAuth(t *testing.T, stateDir string) {
	t.Helper()
	dir := filepath.Join(stateDir, "nats")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	auth := `{"user":"autarch","password":"` + a.Secrets["NATS password"] + `"}`
	if err := os.WriteFile(filepath.Join(dir, "auth.json"), []byte(auth), 0o600); err != nil {
		t.Fatal(err)
	}
}
