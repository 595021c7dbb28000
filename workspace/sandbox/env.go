package sandbox

import (
	"log/slog"
	"os"
	"regexp"
	"slices"
	"strings"
)

// allowedNames are the variables a command gets from Autarch's
// environment, whatever its name or purpose otherwise: the shell's and the
// locale's, and the toolchains' own settings (where their tools are, how to
// build, which registry to use). Everything else is dropped: a deny-list
// cannot know every credential's name (MYSQL_PWD, CI_JOB_JWT, DOCKER_PASS,
// GIT_CONFIG_PARAMETERS carrying an http.extraHeader). Left out on purpose:
// SSH_AUTH_SOCK, GPG_AGENT_INFO, DBUS_SESSION_BUS_ADDRESS,
// XDG_RUNTIME_DIR, DISPLAY, WAYLAND_DISPLAY, XAUTHORITY (sockets and
// cookies reaching the user's agents and desktop), KUBECONFIG,
// DOCKER_HOST, DOCKER_CONFIG, AWS_PROFILE and the like (the way to the
// user's clusters and accounts), GIT_* but the author's identity (config
// and helpers), XDG_*_HOME (the sandbox's home is private), shell start-up
// hooks (BASH_ENV, ENV, PROMPT_COMMAND, exported functions), EDITOR and
// PAGER (nothing interactive runs), and every AUTARCH_* variable.
var allowedNames = map[string]bool{
	// Shell, user and locale. HOME and TMPDIR are set by the sandbox.
	"PATH": true, "HOME": true, "USER": true, "LOGNAME": true, "SHELL": true,
	"LANG": true, "LANGUAGE": true, "TERM": true, "COLORTERM": true, "NO_COLOR": true, "TZ": true, "CI": true,
	"GIT_AUTHOR_NAME": true, "GIT_AUTHOR_EMAIL": true, "GIT_COMMITTER_NAME": true, "GIT_COMMITTER_EMAIL": true,
	// Proxies and certificate authorities (preflight installs behind a
	// corporate proxy); a password in a proxy URL is stripped.
	"HTTP_PROXY": true, "HTTPS_PROXY": true, "ALL_PROXY": true, "NO_PROXY": true,
	"http_proxy": true, "https_proxy": true, "all_proxy": true, "no_proxy": true,
	"SSL_CERT_FILE": true, "SSL_CERT_DIR": true, "REQUESTS_CA_BUNDLE": true, "CURL_CA_BUNDLE": true, "NODE_EXTRA_CA_CERTS": true,
	// Go (GOCACHE and GOTOOLCHAIN are set by the sandbox).
	"GOROOT": true, "GOPATH": true, "GOBIN": true, "GOMODCACHE": true, "GOFLAGS": true, "GOPROXY": true,
	"GOSUMDB": true, "GOPRIVATE": true, "GONOPROXY": true, "GONOSUMDB": true, "GONOSUMCHECK": true, "GOINSECURE": true,
	"GOOS": true, "GOARCH": true, "GOAMD64": true, "GOARM64": true, "GOEXPERIMENT": true, "GODEBUG": true, "GOWORK": true, "GOCOVERDIR": true,
	// C and C++ (CGO_* by prefix).
	"CC": true, "CXX": true, "AR": true, "CFLAGS": true, "CXXFLAGS": true, "CPPFLAGS": true, "LDFLAGS": true,
	"PKG_CONFIG_PATH": true, "LD_LIBRARY_PATH": true,
	// Rust (not CARGO_* by prefix: CARGO_REGISTRIES_<name>_TOKEN).
	"CARGO_HOME": true, "RUSTUP_HOME": true, "RUSTUP_TOOLCHAIN": true, "RUSTFLAGS": true, "CARGO_TARGET_DIR": true, "CARGO_BUILD_JOBS": true,
	// Java.
	"JAVA_HOME": true, "MAVEN_OPTS": true, "MAVEN_HOME": true, "M2_HOME": true, "GRADLE_OPTS": true, "GRADLE_USER_HOME": true, "JAVA_TOOL_OPTIONS": true,
	// Node (npm_config_* by prefix, less its credentials).
	"NODE_OPTIONS": true, "NODE_PATH": true, "NODE_ENV": true, "NVM_DIR": true, "NVM_BIN": true, "COREPACK_HOME": true,
	// Python.
	"PYTHONPATH": true, "PYTHONHOME": true, "PYTHONDONTWRITEBYTECODE": true, "PYTHONUNBUFFERED": true, "PYTHONIOENCODING": true,
	"VIRTUAL_ENV": true, "CONDA_PREFIX": true, "CONDA_DEFAULT_ENV": true, "PYENV_ROOT": true, "PYENV_VERSION": true,
	"PIP_INDEX_URL": true, "PIP_EXTRA_INDEX_URL": true, "UV_INDEX_URL": true, "UV_EXTRA_INDEX_URL": true,
	// Ruby (not BUNDLE_*: BUNDLE_<host> holds a registry's credentials).
	"GEM_HOME": true, "GEM_PATH": true, "RBENV_ROOT": true, "RUBYLIB": true,
	// .NET.
	"DOTNET_ROOT": true,
}

// allowedPrefixes are families of harmless settings: the locale, cgo's
// flags, npm's configuration (less credentialName).
var allowedPrefixes = []string{"LC_", "CGO_", "npm_config_", "NPM_CONFIG_"}

// urlNames hold a URL or a list of them, where userinfo is a credential:
// it is stripped and the rest kept.
var urlNames = map[string]bool{
	"HTTP_PROXY": true, "HTTPS_PROXY": true, "ALL_PROXY": true, "http_proxy": true, "https_proxy": true, "all_proxy": true,
	"GOPROXY": true, "PIP_INDEX_URL": true, "PIP_EXTRA_INDEX_URL": true, "UV_INDEX_URL": true, "UV_EXTRA_INDEX_URL": true,
	"npm_config_registry": true, "NPM_CONFIG_REGISTRY": true,
}

// credentialName matches the part of a name of an allowed family
// (npm_config_…) that holds a credential: _auth, _authToken, _password,
// username, email, otp, certfile/keyfile.
var credentialName = regexp.MustCompile(`(?i)AUTH|TOKEN|SECRET|PASS|PWD|KEY|CRED|CERT|OTP|USER|EMAIL|SESSION|COOKIE|PRIVATE`)

// credentialURL matches a value that carries a password in a URL
// (postgres://user:pass@host, https://user:token@proxy).
var credentialURL = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^/@\s:]*:[^/@\s]+@`)

// userinfoURL matches a URL's userinfo (a token alone counts: https://tok@host).
var userinfoURL = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://)[^/@\s]+@`)

// credentialValue matches values that are or carry a credential whatever
// the variable: a URL with a password, an authorization header or bearer
// token, a private key, the known token formats (GitHub, GitLab, Slack,
// OpenAI and Anthropic, AWS, Google, npm, Hugging Face, PyPI, Stripe,
// JWTs), and a password or token given as an option (MAVEN_OPTS=
// -Dpassword=…, GOFLAGS with a token).
var credentialValue = regexp.MustCompile(`(?i)` +
	`[a-z][a-z0-9+.-]*://[^/@\s:]*:[^/@\s]+@` +
	`|\b(?:bearer|basic|token)\s+[a-z0-9._~+/=-]{8,}|authorization\s*[:=]` +
	`|-----BEGIN [A-Z ]*PRIVATE KEY` +
	`|(?-i:\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_\w{20,}|glpat-[\w-]{20,}|xox[baprs]-[\w-]{10,}|sk-[\w-]{20,}` +
	`|(?:AKIA|ASIA)[0-9A-Z]{16}|AIza[\w-]{35}|npm_[A-Za-z0-9]{36}|hf_[A-Za-z0-9]{30,}|pypi-[\w-]{50,}|[sr]k_live_[0-9A-Za-z]{20,}` +
	`|eyJ[\w-]{10,}\.eyJ[\w-]{10,}\.[\w-]{10,}))` +
	`|(?:^|[\s;&?,-])[\w.-]*(?:pass(?:word|wd)?|pwd|token|secret|api[_-]?key)[\w.-]*=[^\s&;,]`)

// ScrubEnv returns the variables of environ (KEY=VALUE entries, as
// os.Environ gives them) that a command may see: the allow-list
// (allowedNames, allowedPrefixes), with the userinfo of URLs stripped,
// and without any value that carries a credential (credentialValue):
// such a variable is dropped, with a debug record naming it (never its
// value). PATH's value is not checked: a list of directories carries no
// credential, and a command without it cannot run. Malformed entries are
// dropped. The order of the rest is kept. The names the user adds come
// through Spec.Env (PassEnv).
func ScrubEnv(environ []string) []string {
	return scrubEnv(environ, slog.Default())
}

func scrubEnv(environ []string, log *slog.Logger) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || !allowedName(name) {
			continue
		}
		if urlNames[name] {
			value = userinfoURL.ReplaceAllString(value, "$1")
		}
		if name != "PATH" && credentialValue.MatchString(value) {
			log.Debug("sandbox: environment variable dropped: its value looks like a credential", "name", name)
			continue
		}
		out = append(out, name+"="+value)
	}
	return out
}

// allowedName reports whether name is on the allow-list.
func allowedName(name string) bool {
	if allowedNames[name] {
		return true
	}
	for _, p := range allowedPrefixes {
		if rest, ok := strings.CutPrefix(name, p); ok && rest != "" {
			return !credentialName.MatchString(rest)
		}
	}
	return false
}

// envName matches a portable variable name.
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// ReservedEnvName explains why the user may not add name to the
// sandbox's environment ("" when they may): the names the sandbox sets
// itself (HOME, TMPDIR, GOCACHE, GOTOOLCHAIN), Autarch's own (AUTARCH_*:
// settings and keys) and malformed names.
func ReservedEnvName(name string) string {
	switch {
	case !envName.MatchString(name):
		return "not a variable name (letters, digits and _, not starting with a digit)"
	case name == "HOME" || name == "TMPDIR" || name == "GOCACHE" || name == "GOTOOLCHAIN":
		return "set by the sandbox itself"
	case strings.HasPrefix(strings.ToUpper(name), "AUTARCH_"):
		return "Autarch's own settings and keys never reach commands"
	}
	return ""
}

// PassEnv returns the KEY=VALUE entries of environ for names, the
// variables the user added to commands' environment in their own settings
// (never the repository's), for Spec.Env. The user chose them, so their
// values are not checked; names ReservedEnvName refuses and names not set
// are skipped.
func PassEnv(environ, names []string) []string {
	var out []string
	for _, name := range names {
		if ReservedEnvName(name) != "" {
			continue
		}
		if v, ok := lookupEnv(environ, name); ok {
			out = append(out, name+"="+v)
		}
	}
	return out
}

// EnvNames are the names of env's KEY=VALUE entries, sorted (autarch
// doctor lists what passes, never the values).
func EnvNames(env []string) []string {
	names := make([]string, 0, len(env))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(names, k) {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	return names
}

// environ is the environment of every command of b before Spec.Env: the
// scrubbed process environment, the go settings (scrubbed too: go env
// reports a GOPROXY token from the user's go env file), and the sandbox's
// own GOTOOLCHAIN, TMPDIR and HOME (the private home directory, or /tmp).
// GOCACHE depends on the spec.
func (b *Bwrap) environ() []string {
	env := scrubEnv(os.Environ(), b.log)
	env = mergeEnv(env, scrubEnv(b.goEnv, b.log))
	env = setEnv(env, "GOTOOLCHAIN", "local")
	env = setEnv(env, "TMPDIR", "/tmp")
	if b.home != "" {
		return setEnv(env, "HOME", b.home)
	}
	return setEnv(env, "HOME", "/tmp")
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
