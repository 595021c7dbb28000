package langserver

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// fakeRustup makes a rustup whose proxy rust-analyzer is a link to it, and
// a toolchain tc (rustc, cargo, and rust-analyzer when component). rustup
// logs where and how it ran to the file returned.
func fakeRustup(t *testing.T, component bool) (proxy, tc, log string) {
	t.Helper()
	bin, tc := t.TempDir(), t.TempDir()
	log = filepath.Join(t.TempDir(), "log")
	write := func(p, body string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ra := "*) exit 1;;"
	if component {
		ra = "\"which rust-analyzer\") echo " + tc + "/bin/rust-analyzer;;\n*) exit 1;;"
		write(filepath.Join(tc, "bin", "rust-analyzer"), "#!/bin/sh\n")
	}
	write(filepath.Join(bin, "rustup"), "#!/bin/sh\necho \"$(basename \"$0\") $* in $PWD toolchain=$RUSTUP_TOOLCHAIN\" >> "+log+"\n"+
		"case \"$1 $2\" in\n\"which rustc\") echo "+tc+"/bin/rustc;;\n"+ra+"\nesac\n")
	write(filepath.Join(tc, "bin", "rustc"), "#!/bin/sh\n")
	write(filepath.Join(tc, "bin", "cargo"), "#!/bin/sh\n")
	proxy = filepath.Join(bin, "rust-analyzer")
	if err := os.Symlink("rustup", proxy); err != nil {
		t.Fatal(err)
	}
	return proxy, tc, log
}

// TestOwnRust (redteam s12 01): rust-analyzer found as a rustup proxy is
// resolved by rustup in "/" (never the worktree, whose rust-toolchain.toml
// a proxy follows), without Autarch's RUSTUP_TOOLCHAIN; its toolchain,
// cargo, rustc, no wrapper, no rustflags and no network are pinned by
// environment, for the server and in cargo.extraEnv; a tree configuring
// rust-analyzer or cargo is refused; a proxy without the component is
// refused with the command that installs it.
func TestOwnRust(t *testing.T) {
	t.Setenv("RUSTUP_TOOLCHAIN", "planted")
	proxy, tc, log := fakeRustup(t, true)
	for _, tc2 := range []struct {
		name    string
		files   []string
		refused string
	}{
		{"clean", nil, ""},
		{"rust-toolchain.toml (pinned by environment)", []string{"rust-toolchain.toml", "rust-toolchain"}, ""},
		{"rust-analyzer.toml", []string{"rust-analyzer.toml"}, "rust-analyzer.toml"},
		{".rust-analyzer.toml in a crate", []string{"crates/a/.rust-analyzer.toml"}, "crates/a/.rust-analyzer.toml"},
		{".cargo/config.toml", []string{".cargo/config.toml"}, ".cargo/config.toml"},
		{".cargo/config in a crate", []string{"sub/.cargo/config"}, "sub/.cargo/config"},
	} {
		t.Run(tc2.name, func(t *testing.T) {
			root := t.TempDir()
			for _, f := range append(tc2.files, "Cargo.toml", ".git/rust-analyzer.toml") {
				p := filepath.Join(root, f)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			srv, _ := ForFile(Known(), "main.rs")
			l, err := srv.launch(proxy, root)
			if tc2.refused != "" {
				if err == nil || !strings.Contains(err.Error(), tc2.refused) {
					t.Fatalf("err = %v, want a refusal naming %s", err, tc2.refused)
				}
				if err := srv.Recheck(root); err == nil || !strings.Contains(err.Error(), tc2.refused) {
					t.Errorf("recheck = %v, want a refusal naming %s", err, tc2.refused)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := srv.Recheck(root); err != nil {
				t.Errorf("recheck = %v", err)
			}
			if want := filepath.Join(tc, "bin", "rust-analyzer"); l.Exe != want {
				t.Errorf("exe = %s, want the toolchain's %s", l.Exe, want)
			}
			for _, kv := range []string{"RUSTUP_TOOLCHAIN=" + tc, "RUSTC=" + tc + "/bin/rustc", "CARGO=" + tc + "/bin/cargo",
				"RUSTC_WRAPPER=", "RUSTC_WORKSPACE_WRAPPER=", "CARGO_BUILD_RUSTC_WRAPPER=", "CARGO_BUILD_RUSTC_WORKSPACE_WRAPPER=",
				"CARGO_ENCODED_RUSTFLAGS=", "CARGO_NET_OFFLINE=true"} {
				if !slices.Contains(l.Env, kv) {
					t.Errorf("env lacks %s: %v", kv, l.Env)
				}
				k, v, _ := strings.Cut(kv, "=")
				cargo, _ := l.Options["cargo"].(map[string]any)
				if extra, _ := cargo["extraEnv"].(map[string]any); extra[k] != v {
					t.Errorf("cargo.extraEnv[%s] = %v, want %q", k, extra[k], v)
				}
			}
			cargo, _ := l.Options["cargo"].(map[string]any)
			if bs, _ := cargo["buildScripts"].(map[string]any); bs["enable"] != false || l.Options["checkOnSave"] != false {
				t.Errorf("options = %v, want build scripts and check on save off", l.Options)
			}
		})
	}
	data, _ := os.ReadFile(log)
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if !strings.HasPrefix(line, "rustup which ") || !strings.HasSuffix(line, " in / toolchain=") {
			t.Errorf("rustup ran as %q, want `rustup which` in / with no RUSTUP_TOOLCHAIN", line)
		}
	}

	t.Run("no component", func(t *testing.T) {
		proxy, _, _ := fakeRustup(t, false)
		srv, _ := ForFile(Known(), "main.rs")
		_, err := srv.launch(proxy, t.TempDir())
		var ni *NotInstalledError
		if !errors.As(err, &ni) || !strings.Contains(err.Error(), "rustup component add rust-analyzer") {
			t.Fatalf("err = %v, want NotInstalledError saying `rustup component add rust-analyzer`", err)
		}
	})
	t.Run("the toolchain is the tree's", func(t *testing.T) {
		proxy, tc, _ := fakeRustup(t, true)
		srv, _ := ForFile(Known(), "main.rs")
		if _, err := srv.launch(proxy, filepath.Dir(tc)); err == nil || !strings.Contains(err.Error(), "inside the worktree") {
			t.Fatalf("err = %v, want a refusal", err)
		}
	})
}

// TestCheckStopsARefusedServer: a running server whose Recheck refuses
// the tree (rust-analyzer.toml written after it started) is stopped by
// Check, which answers the refusal; StopRoot stops one root's servers.
func TestCheckStopsARefusedServer(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	root, other := t.TempDir(), t.TempDir()
	srv := Server{Name: "fake", Command: []string{self}, Languages: map[string]string{".fk": "fake"},
		Recheck: func(root string) error {
			if _, err := os.Stat(filepath.Join(root, "refuse")); err == nil {
				return errors.New("refused: the tree holds refuse")
			}
			return nil
		}}
	pool := NewPool(Options{})
	t.Cleanup(func() { pool.Close(context.Background()) })
	mode := "ok"
	c, o := pool.Client(root, srv), pool.Client(other, srv)
	for _, c := range []*Client{c, o} {
		if err := c.Check(); err != nil {
			t.Fatal(err)
		}
		if err := c.Call(context.Background(), fakeStarter(&mode), "textDocument/hover", nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "refuse"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var refused *RefusedError
	if err := c.Check(); !errors.As(err, &refused) || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("check = %v, want the refusal", err)
	}
	if c.Running() || !o.Running() {
		t.Fatalf("running: refused %v (want false), other %v (want true)", c.Running(), o.Running())
	}
	pool.StopRoot(context.Background(), other)
	if o.Running() {
		t.Error("StopRoot left the root's server running")
	}
}
