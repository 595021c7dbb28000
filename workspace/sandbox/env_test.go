package sandbox

import (
	"context"
	"log/slog"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// envAttacks are variables of the server's environment a command must
// not see, each holding a marker ("s3cr3t") that must not appear anywhere
// in the command's environment.
var envAttacks = []struct{ name, value string }{
	{"MYSQL_PWD", "s3cr3t-mysql"},
	{"CI_JOB_JWT", "s3cr3t.jwt.value"},
	{"CI_JOB_TOKEN", "s3cr3t-ci"},
	{"DOCKER_PASS", "s3cr3t-docker"},
	{"DB_PASS", "s3cr3t-db"},
	{"DATABASE_URL", "postgres://db.internal/app?sslmode=disable&password=s3cr3t-dburl"},
	{"GIT_CONFIG_PARAMETERS", "'http.https://github.com/.extraheader'='AUTHORIZATION: bearer s3cr3tBearerToken1234'"},
	{"GIT_CONFIG_COUNT", "1"},
	{"GIT_CONFIG_KEY_0", "http.extraHeader"},
	{"GIT_CONFIG_VALUE_0", "Authorization: Bearer s3cr3t-gitcfg"},
	{"GIT_ASKPASS", "/usr/local/bin/s3cr3t-askpass"},
	{"AWS_SESSION_TOKEN", "s3cr3t-aws-session"},
	{"AWS_PROFILE", "s3cr3t-prod-admin"},
	{"GH_TOKEN", "s3cr3t-gh"},
	{"NPM_TOKEN", "s3cr3t-npm"},
	{"npm_config__authToken", "s3cr3t-npmrc"},
	{"NPM_CONFIG__AUTH", "s3cr3t-npmauth"},
	{"npm_config_password", "s3cr3t-npmpass"},
	{"CARGO_REGISTRIES_CORP_TOKEN", "s3cr3t-cargo"},
	{"BUNDLE_GEM__FURY__IO", "s3cr3t-bundle"},
	{"TWINE_PASSWORD", "s3cr3t-twine"},
	{"PGPASSWORD", "s3cr3t-pg"},
	{"VAULT_TOKEN", "s3cr3t-vault"},
	{"SENTRY_DSN", "https://s3cr3tkey@o1.ingest.sentry.io/1"},
	{"KUBECONFIG", "/home/u/.kube/s3cr3t-config"},
	{"DOCKER_HOST", "unix:///run/s3cr3t-docker.sock"},
	{"SSH_AUTH_SOCK", "/tmp/ssh-s3cr3t/agent.1"},
	{"GPG_AGENT_INFO", "/run/user/1000/gnupg/s3cr3t"},
	{"DBUS_SESSION_BUS_ADDRESS", "unix:path=/run/user/1000/bus-s3cr3t"},
	{"XDG_RUNTIME_DIR", "/run/user/1000/s3cr3t"},
	{"XAUTHORITY", "/home/u/.Xauthority-s3cr3t"},
	{"DISPLAY", ":0-s3cr3t"},
	{"OPENAI_API_KEY", "s3cr3t-openai"},
	{"AUTARCH_SANDBOX_ENV", "s3cr3t-autarch"},
	{"AUTARCH_EMBEDDINGS_API_KEY", "s3cr3t-emb"},
	{"BASH_ENV", "/tmp/s3cr3t-hook"},
	{"PROMPT_COMMAND", "echo s3cr3t"},
	{"BASH_FUNC_ls%%", "() { echo s3cr3t; }"},
	{"ACTIONS_ID_TOKEN_REQUEST_URL", "https://s3cr3t.actions/token"},
	// Allowed names whose value carries a credential.
	{"GOFLAGS", "-ldflags=-X main.token=s3cr3tGoFlag"},
	{"MAVEN_OPTS", "-Dmaven.repo.password=s3cr3tMaven"},
	{"NODE_OPTIONS", "--header 'Authorization: Bearer s3cr3tNodeOpt99'"},
	{"PIP_EXTRA_INDEX_URL", "https://pypi.corp.example/simple?token=s3cr3tPip"},
	{"LC_PAPER", "ghp_s3cr3tAbCdEfGhIjKlMnOpQrStUvWxYz0123"},
}

// envKept are variables that pass, with the value the command sees.
var envKept = []struct{ name, value, want string }{
	{"LANG", "C.UTF-8", "C.UTF-8"},
	{"LC_ALL", "C.UTF-8", "C.UTF-8"},
	{"TERM", "xterm-256color", "xterm-256color"},
	{"TZ", "Europe/Paris", "Europe/Paris"},
	{"CGO_ENABLED", "0", "0"},
	{"JAVA_HOME", "/usr/lib/jvm/java-17", "/usr/lib/jvm/java-17"},
	{"npm_config_cache", "/tmp/npm-cache", "/tmp/npm-cache"},
	{"PYTHONPATH", "/opt/lib/python", "/opt/lib/python"},
	{"HTTPS_PROXY", "http://user:s3cr3t-proxy@proxy.corp:3128", "http://proxy.corp:3128"},
	{"PIP_INDEX_URL", "https://s3cr3t-tok@pypi.corp.example/simple", "https://pypi.corp.example/simple"},
	{"npm_config_registry", "https://me:s3cr3t-npmreg@npm.corp.example/", "https://npm.corp.example/"},
}

// TestScrubEnvAllowList: only the allow-list passes, URL userinfo is
// stripped, credential values are dropped.
func TestScrubEnvAllowList(t *testing.T) {
	for _, a := range envAttacks {
		if got := ScrubEnv([]string{a.name + "=" + a.value}); len(got) != 0 {
			t.Errorf("ScrubEnv kept %s: %v", a.name, got)
		}
	}
	for _, k := range envKept {
		got := ScrubEnv([]string{k.name + "=" + k.value})
		if want := []string{k.name + "=" + k.want}; !slices.Equal(got, want) {
			t.Errorf("ScrubEnv(%s=%s) = %v, want %v", k.name, k.value, got, want)
		}
	}
	for _, kv := range []string{"=nameless", "noequals", "PATH_EXTRA=/x", "npm_config_=x", "GOPROXY_X=y"} {
		if got := ScrubEnv([]string{kv}); len(got) != 0 {
			t.Errorf("ScrubEnv(%q) = %v, want nothing", kv, got)
		}
	}
	// A directory list is never dropped, whatever a directory is called.
	if got := ScrubEnv([]string{"PATH=/opt/sk-learn-tools-version-1.2.3/bin:/usr/bin"}); len(got) != 1 {
		t.Errorf("PATH dropped: %v", got)
	}
	if got := ScrubEnv([]string{"B=1", "LANG=C", "KEY=x", "TERM=dumb"}); !slices.Equal(got, []string{"LANG=C", "TERM=dumb"}) {
		t.Errorf("order not kept: %v", got)
	}
}

// TestScrubEnvLogsNameNotValue: a dropped credential is logged by name.
func TestScrubEnvLogsNameNotValue(t *testing.T) {
	var buf strings.Builder
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	scrubEnv([]string{"MAVEN_OPTS=-Dpassword=s3cr3tLogged"}, log)
	if !strings.Contains(buf.String(), "MAVEN_OPTS") || strings.Contains(buf.String(), "s3cr3t") {
		t.Errorf("log = %q, want the name and not the value", buf.String())
	}
}

// TestEnvAttacksAbsentInSandbox runs env in the real sandbox (and
// unconfined) with the server's environment full of credentials: none
// reaches the command, the allowed names and the user's added names do.
func TestEnvAttacksAbsentInSandbox(t *testing.T) {
	f := newFixture(t)
	for _, a := range envAttacks {
		t.Setenv(a.name, a.value)
	}
	for _, k := range envKept {
		t.Setenv(k.name, k.value)
	}
	t.Setenv("MY_TOOL_HOME", "/opt/mytool")
	t.Setenv("MY_TEST_DB_URL", "postgres://u:userchosen@localhost/test")
	user := PassEnv(os.Environ(), []string{"MY_TOOL_HOME", "MY_TEST_DB_URL", "HOME", "AUTARCH_SANDBOX_ENV", "NOT_SET_ANYWHERE"})
	if want := []string{"MY_TOOL_HOME=/opt/mytool", "MY_TEST_DB_URL=postgres://u:userchosen@localhost/test"}; !slices.Equal(user, want) {
		t.Fatalf("PassEnv = %v, want %v", user, want)
	}
	spec := Spec{Command: "env", Env: user}
	runs := map[string]func() Result{
		"bwrap": func() Result { return f.run(t, spec) },
		"unconfined": func() Result {
			spec := spec
			spec.Dir, spec.Timeout = f.dir, time.Minute
			res, err := Unconfined{}.Run(context.Background(), spec)
			if err != nil {
				t.Fatal(err)
			}
			return res
		},
	}
	for mech, run := range runs {
		t.Run(mech, func(t *testing.T) {
			res := run()
			if res.ExitCode != 0 {
				t.Fatalf("env: %+v", res)
			}
			got := map[string]string{}
			for _, l := range strings.Split(res.Stdout, "\n") {
				if k, v, ok := strings.Cut(l, "="); ok {
					got[k] = v
				}
			}
			for _, a := range envAttacks {
				if v, ok := got[a.name]; ok {
					t.Errorf("%s reached the command: %q", a.name, v)
				}
			}
			if strings.Contains(res.Stdout, "s3cr3t") {
				t.Errorf("a credential reached the command:\n%s", res.Stdout)
			}
			for _, k := range envKept {
				if got[k.name] != k.want {
					t.Errorf("%s = %q, want %q", k.name, got[k.name], k.want)
				}
			}
			if got["MY_TOOL_HOME"] != "/opt/mytool" || got["MY_TEST_DB_URL"] == "" {
				t.Errorf("the user's names did not pass: %q, %q", got["MY_TOOL_HOME"], got["MY_TEST_DB_URL"])
			}
			if mech == "bwrap" && got["HOME"] != f.home {
				t.Errorf("HOME = %q, want the sandbox's %q", got["HOME"], f.home)
			}
		})
	}
}

func TestReservedEnvName(t *testing.T) {
	for name, reserved := range map[string]bool{
		"MY_VAR": false, "NPM_TOKEN": false, "_x1": false,
		"HOME": true, "TMPDIR": true, "GOCACHE": true, "GOTOOLCHAIN": true, "AUTARCH_MODEL": true, "autarch_x": true,
		"1BAD": true, "A-B": true, "": true, "A=B": true,
	} {
		if got := ReservedEnvName(name) != ""; got != reserved {
			t.Errorf("ReservedEnvName(%q) reserved = %v, want %v", name, got, reserved)
		}
	}
}

func TestReportListsEnvironmentNames(t *testing.T) {
	f := newFixture(t)
	t.Setenv("LANG", "C.UTF-8")
	t.Setenv("MYSQL_PWD", "s3cr3t")
	rep := f.sb.Report(context.Background())
	line := ""
	for _, l := range strings.Split(rep, "\n") {
		if strings.HasPrefix(l, "environment:") {
			line = l
		}
	}
	_, names, _ := strings.Cut(line, "passing here: ")
	fields := strings.Fields(names)
	if !slices.Contains(fields, "LANG") || !slices.Contains(fields, "HOME") || slices.Contains(fields, "MYSQL_PWD") || strings.Contains(line, "s3cr3t") {
		t.Errorf("report's environment line: %q", line)
	}
}

// A GOPROXY token (from the environment or the user's go env file, which
// go env reports) never reaches the command; the proxy does.
func TestGoProxyTokenStripped(t *testing.T) {
	t.Setenv("GOPROXY", "https://s3cr3ttok@goproxy.corp.example,direct")
	f := newFixture(t)
	res := f.run(t, Spec{Command: `echo "GOPROXY=$GOPROXY"; go env GOPROXY`})
	if strings.Contains(res.Stdout, "s3cr3t") || !strings.Contains(res.Stdout, "GOPROXY=https://goproxy.corp.example,direct\n") {
		t.Errorf("GOPROXY in the sandbox: %s%s", res.Stdout, res.Stderr)
	}
}
