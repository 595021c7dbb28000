package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLogsHaveNoSecret: the CLI's and the server's loggers write no secret
// value of the workspace (its .env) or the environment, whatever carries
// it (message, attribute, error, logger attribute).
func TestLogsHaveNoSecret(t *testing.T) {
	const dotenv, envTok = "Xk9fQ2mZ8pL4wR7tVb3n", "envTok-8Hq2Mx7Lp4Wz9"
	t.Setenv("ACME_DEPLOY_TOKEN", envTok)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ".env"), []byte("API_SECRET="+dotenv+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	var cli, serve strings.Builder
	logPath := filepath.Join(t.TempDir(), "serve.log")
	slogger, closeLog := newLogger(&serve, logPath, 0)
	for _, log := range []interface {
		Warn(string, ...any)
	}{warnLog(&cli, dir), slogger.With("token", envTok)} {
		log.Warn("tool call with "+dotenv, "args", `{"command": "echo `+dotenv+`"}`, "err", errors.New("failed: "+envTok))
	}
	closeLog()
	file, _ := os.ReadFile(logPath)
	for name, out := range map[string]string{"cli": cli.String(), "serve stderr": serve.String(), "serve log file": string(file)} {
		if !strings.Contains(out, "[blocked]") {
			t.Errorf("%s: nothing logged or nothing masked: %s", name, out)
		}
		if strings.Contains(out, dotenv) || strings.Contains(out, envTok) {
			t.Errorf("%s has a secret: %s", name, out)
		}
	}
}
