package sandbox

import (
	"regexp"
	"strings"
)

// secretName matches variable names that look like they hold a credential.
var secretName = regexp.MustCompile(`(?i)KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL|AUTH|SESSION|COOKIE|PRIVATE`)

// harmlessName are names secretName matches that hold no credential.
var harmlessName = regexp.MustCompile(`^(GIT_(AUTHOR|COMMITTER)_(NAME|EMAIL|DATE)|XDG_SESSION_(ID|TYPE|CLASS|DESKTOP)|TOKENIZERS_PARALLELISM|KEYTIMEOUT)$`)

// droppedName are variables that give access to the user's agents and
// display servers, whatever their name says.
var droppedName = map[string]bool{
	"DISPLAY":         true,
	"WAYLAND_DISPLAY": true,
	"SSH_AGENT_PID":   true,
	"GPG_AGENT_INFO":  true,
	"KRB5CCNAME":      true,
	"PROMPT_COMMAND":  true,
	"BASH_ENV":        true,
	"ENV":             true,
}

// credentialURL matches a value that carries a password in a URL
// (postgres://user:pass@host, https://user:token@proxy).
var credentialURL = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^/@\s:]*:[^/@\s]+@`)

// ScrubEnv returns environ (KEY=VALUE entries, as os.Environ gives them)
// without the variables a command must not see: every name that looks
// like a credential (KEY, TOKEN, SECRET, PASSWORD, PASSWD, PASSPHRASE,
// CREDENTIAL, AUTH, SESSION, COOKIE, PRIVATE, case-insensitive: this
// covers OPENAI_API_KEY, ANTHROPIC_API_KEY, AUTARCH_*_KEY, GITHUB_TOKEN,
// SSH_AUTH_SOCK, DBUS_SESSION_BUS_ADDRESS, XAUTHORITY) except a few
// harmless ones (GIT_AUTHOR_NAME, XDG_SESSION_TYPE…), every AUTARCH_*
// variable but AUTARCH_SANDBOX*, the variables that reach the user's
// agents and display (DISPLAY, SSH_AGENT_PID…), the shell start-up hooks
// (BASH_ENV, ENV, PROMPT_COMMAND), exported bash functions, and every
// value holding a password in a URL. Malformed entries are dropped. The
// order of the rest is kept.
func ScrubEnv(environ []string) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || name == "" || !keepVar(name, value) {
			continue
		}
		out = append(out, kv)
	}
	return out
}

func keepVar(name, value string) bool {
	switch {
	case droppedName[name]:
		return false
	case strings.HasPrefix(name, "BASH_FUNC_"):
		return false
	case strings.HasPrefix(strings.ToUpper(name), "AUTARCH_") && !strings.HasPrefix(strings.ToUpper(name), "AUTARCH_SANDBOX"):
		return false
	case secretName.MatchString(name) && !harmlessName.MatchString(name):
		return false
	case credentialURL.MatchString(value):
		return false
	}
	return true
}

// setEnv returns env with name set to value, replacing earlier entries.
func setEnv(env []string, name, value string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if k, _, _ := strings.Cut(kv, "="); k != name {
			out = append(out, kv)
		}
	}
	return append(out, name+"="+value)
}

// lookupEnv returns the value of name in env.
func lookupEnv(env []string, name string) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, _ := strings.Cut(env[i], "="); k == name {
			return v, true
		}
	}
	return "", false
}

// mergeEnv sets each KEY=VALUE of extra in env.
func mergeEnv(env, extra []string) []string {
	for _, kv := range extra {
		k, v, _ := strings.Cut(kv, "=")
		env = setEnv(env, k, v)
	}
	return env
}
