package tools

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Secret values of the egress tests: none is caught by the line rules
// alone when it stands without its key.
const (
	dotenvSecret = "Xk9fQ2mZ8pL4wR7tVb3n"
	dotenvDBPass = "h0rse-Battery-9staple"
	jsonSecret   = "cs_live_Pq7Wm2Zx8Ln4Vr6T"
	yamlSecret   = "Yq2Wp9Lm4Zr8Tn6K"
	envSecret    = "envTok-8Hq2Mx7Lp4Wz9"
	natsPassword = "natsPw-3Kd8Qm2Lx7Zr"
)

// egressRepo is a workspace with secrets in files the gate blocks, and
// Autarch's NATS credentials in its git directory.
func egressRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		".env":                        "# app\nexport API_SECRET=\"" + dotenvSecret + "\"\nDB_PASS=" + dotenvDBPass + " # prod\nDEBUG=true\nHOST=localhost\n",
		"config/credentials.json":     `{"client_id": "app", "client_secret": "` + jsonSecret + `"}`,
		"deploy/secrets.yaml":         "db:\n  user: app\n  password: " + yamlSecret + "\n",
		".git/autarch/nats/a.txt":     "",
		".git/autarch/nats/auth.json": `{"user": "autarch", "password": "` + natsPassword + `"}`,
		"main.go":                     "package main\n",
	})
	return dir
}

// wrap76 folds s as base64 does.
func wrap76(s string) string {
	var b strings.Builder
	for len(s) > 76 {
		b.WriteString(s[:76] + "\n")
		s = s[76:]
	}
	return b.String() + s
}

func reversed(s string) string { return reverseText(s) }

// TestEgressMasksSecretValues: a tool result carrying a secret value of
// the workspace, Autarch's state or the environment, in any of the forms
// a command can give it, comes out of the engine without it.
func TestEgressMasksSecretValues(t *testing.T) {
	dir := egressRepo(t)
	dotenv, _ := os.ReadFile(filepath.Join(dir, ".env"))
	b64 := base64.StdEncoding.EncodeToString
	leaks := []struct {
		name, out string
		secret    string
	}{
		{"plain value", "connecting with " + dotenvSecret + " now", dotenvSecret},
		{"db password", "pw is " + dotenvDBPass, dotenvDBPass},
		{"json secret", "cs: " + jsonSecret, jsonSecret},
		{"yaml secret", "x " + yamlSecret + " y", yamlSecret},
		{"environment", "token " + envSecret, envSecret},
		{"nats password", "nats " + natsPassword, natsPassword},
		{"rev .env", reversed(string(dotenv)), dotenvSecret},
		{"base64 .env", wrap76(b64(dotenv)), dotenvSecret},
		{"rev .env | base64", wrap76(b64([]byte(reversed(string(dotenv))))), dotenvSecret},
		{"base64 value, offset 1", b64([]byte("x" + dotenvSecret + "y")), dotenvSecret},
		{"base64 value, offset 2", b64([]byte("xy" + dotenvSecret)), dotenvSecret},
		{"url-safe base64", base64.URLEncoding.EncodeToString([]byte("?" + jsonSecret + ">>")), jsonSecret},
		{"xxd -p .env", strings.Join(chunks(hex.EncodeToString(dotenv), 60), "\n"), dotenvSecret},
		{"hex upper", strings.ToUpper(hex.EncodeToString([]byte(natsPassword))), natsPassword},
		{"fold -w 8", strings.Join(chunks(dotenvSecret, 8), "\n"), dotenvSecret},
		{"fold -w 3 reversed", strings.Join(chunks(reversed(yamlSecret), 3), "\r\n"), yamlSecret},
	}
	for _, l := range leaks {
		for _, asJSON := range []bool{false, true} {
			h := newHarness(t, "research", SessionConfig{Root: dir, Egress: NewEgress(context.Background(), nil, EgressSources{
				Roots: []string{dir}, Files: []string{filepath.Join(dir, ".git/autarch/nats/auth.json")}, Environ: []string{"MY_SERVICE_TOKEN=" + envSecret, "HOME=/root"}})})
			if err := h.e.Registry().Register(leakTool()); err != nil {
				t.Fatal(err)
			}
			res := h.call("leak", map[string]any{"out": l.out, "json": asJSON})
			if asJSON && !json.Valid([]byte(res.Output)) {
				t.Errorf("%s: the JSON result is no longer JSON: %s", l.name, res.Output)
			}
			if leakedForm(res.Output, l.secret) {
				t.Errorf("%s (json %v): the secret reached the model: %q", l.name, asJSON, res.Output)
			}
			if !strings.Contains(res.Output, "[blocked]") {
				t.Errorf("%s (json %v): nothing was masked: %q", l.name, asJSON, res.Output)
			}
		}
	}
}

// TestEgressKeepsOrdinaryText: values that are no secret (DEBUG=true,
// HOST=localhost) and text without secrets pass unchanged.
func TestEgressKeepsOrdinaryText(t *testing.T) {
	dir := egressRepo(t)
	e := NewEgress(context.Background(), nil, DefaultEgressSources(dir, ""))
	for _, s := range []string{"HOST=localhost and DEBUG=true", "package main\n\nfunc main() {}\n", `{"a": "b\nc", "n": [1, 2.5, null]}`} {
		if got := e.Auto(s); got != s {
			t.Errorf("Auto(%q) = %q, want it unchanged", s, got)
		}
	}
	if e.Values() < 5 {
		t.Errorf("harvested %d values, want at least 5 (.env, credentials.json, secrets.yaml, auth.json)", e.Values())
	}
}

// TestEgressJSONKeepsStructure: redaction happens inside decoded strings;
// the rest of the JSON is kept byte for byte.
func TestEgressJSONKeepsStructure(t *testing.T) {
	e := NewEgress(context.Background(), nil, EgressSources{Values: []string{dotenvSecret}})
	in := `{"z": 1, "a": "pw \"` + dotenvSecret + `\"\n", "k": ["` + reversed(dotenvSecret) + `", true]}`
	got := e.JSON(in)
	want := `{"z": 1, "a": "pw \"[blocked]\"\n", "k": ["[blocked]", true]}`
	if got != want {
		t.Errorf("JSON =\n%s\nwant\n%s", got, want)
	}
	// A line rule inside a JSON string blocks that line of the string, not the JSON.
	aws := "AKIA" + "QYLPMN5HHHFPZAM2"
	got = e.JSON(`{"diff": "+a\n+key = ` + aws + `\n+b"}`)
	if !json.Valid([]byte(got)) || strings.Contains(got, aws) || !strings.Contains(got, `+a\n[blocked]\n+b`) {
		t.Errorf("JSON with an AWS key = %s", got)
	}
}

// TestRedactHandler: a log line carrying a secret value (message,
// attribute, error, group, WithAttrs) is written without it.
func TestRedactHandler(t *testing.T) {
	e := NewEgress(context.Background(), nil, EgressSources{Environ: []string{"OPENAI_API_KEY=" + envSecret}})
	var b strings.Builder
	log := slog.New(RedactHandler(slog.NewTextHandler(&b, nil), e)).With("key", envSecret)
	log.Info("calling with "+envSecret, "arg", "x"+envSecret, "err", errString("failed: "+envSecret), slog.Group("g", "v", reversed(envSecret)))
	if strings.Contains(b.String(), envSecret) || strings.Contains(b.String(), reversed(envSecret)) {
		t.Errorf("the log has the secret: %s", b.String())
	}
	if strings.Count(b.String(), "[blocked]") < 5 {
		t.Errorf("the log should show 5 masks: %s", b.String())
	}
}

type errString string

func (e errString) Error() string { return string(e) }

// leakedForm reports whether out still holds secret in a form the tests gave.
func leakedForm(out, secret string) bool {
	flat := strings.NewReplacer("\n", "", "\r", "", `\n`, "", `\r`, "").Replace(out)
	for _, f := range valueForms(secret) {
		if strings.Contains(flat, f) {
			return true
		}
	}
	return false
}

func chunks(s string, n int) []string {
	var out []string
	for len(s) > n {
		out, s = append(out, s[:n]), s[n:]
	}
	return append(out, s)
}

type leakParams struct {
	Reason string `json:"reason,omitempty"`
	Out    string `json:"out"`
	JSON   bool   `json:"json,omitempty"`
}

// leakTool returns what it is given: a tool that does not redact.
func leakTool() Tool {
	return newTool("leak", "returns out", ReadOnly, func(_ context.Context, _ *Session, p leakParams) (Result, error) {
		if p.JSON {
			return jsonResult(map[string]any{"output": p.Out, "n": 1}, false), nil
		}
		return textResult(p.Out), nil
	})
}

// TestUnescape: the JSON string decoder agrees with encoding/json.
func TestUnescape(t *testing.T) {
	for _, lit := range []string{`"a\nb\tc\r\"d\\e\/f\b\f"`, `"\u00e9\u4e2d"`, `"\ud83d\ude00 x"`, `"\ud83d x"`, `"\ude00\ud83d"`, `"end\\"`, `"\u0041KIA"`} {
		var want string
		if err := json.Unmarshal([]byte(lit), &want); err != nil {
			t.Fatal(err)
		}
		if got := unescape(lit[1 : len(lit)-1]); got != want {
			t.Errorf("unescape(%s) = %q, want %q", lit, got, want)
		}
	}
}
