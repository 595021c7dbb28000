package langserver

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// ownRust confines rust-analyzer (redteam s12 01). What runs is decided
// before any initializationOption is read, so:
//
//   - the executable is resolved host-side: `rustup component add
//     rust-analyzer` puts a rustup proxy on PATH, and a proxy started in
//     the worktree would run the toolchain its rust-toolchain.toml names
//     (a `path` toolchain in the tree: the tree's own program). The proxy
//     is asked, in "/", for the binary of the user's toolchain;
//   - what the server runs is pinned by environment, which beats both a
//     rust-toolchain.toml and cargo's configuration: the toolchain, its
//     cargo and rustc, no rustc wrapper, no rustflags, no network
//     (cargo.extraEnv too: rust-analyzer passes it to cargo);
//   - a tree holding rust-analyzer's own configuration (rust-analyzer.toml,
//     whose workspace settings win over the client's: check on save, a
//     check or build-script override command) or cargo's (.cargo/config:
//     its [env] reaches the rustc cargo metadata runs) is refused: no
//     setting turns either off;
//   - build scripts, procedural macros and cargo check on save are off.
func ownRust(exe, root string) (Launch, error) {
	if rel, err := rustConfigIn(root); err != nil {
		return Launch{}, err
	} else if rel != "" {
		return Launch{}, fmt.Errorf("rust-analyzer is not used in this worktree: it holds %s, whose settings rust-analyzer or cargo follow over Autarch's and which can make them run any program; use grep, search_code and read_file for Rust code here", rel)
	}
	real, env, err := pinRust(exe)
	if err != nil {
		return Launch{}, err
	}
	if within(root, real) {
		return Launch{}, fmt.Errorf("rust-analyzer resolves to %s, inside the worktree: Autarch never runs the project's own language server", real)
	}
	extra := map[string]any{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		extra[k] = v
	}
	return Launch{Exe: real, Env: env, Options: map[string]any{
		"cargo":       map[string]any{"buildScripts": map[string]any{"enable": false}, "extraEnv": extra},
		"procMacro":   map[string]any{"enable": false},
		"checkOnSave": false,
	}}, nil
}

// noRustConfig refuses a tree that came to hold rust-analyzer's or
// cargo's configuration after its server started (ownRust).
func noRustConfig(root string) error {
	rel, err := rustConfigIn(root)
	if err == nil && rel != "" {
		err = fmt.Errorf("rust-analyzer was stopped: the worktree now holds %s, whose settings rust-analyzer or cargo follow over Autarch's and which can make them run any program; use grep, search_code and read_file for Rust code here", rel)
	}
	return err
}

// RustAnalyzerExecutable is the rust-analyzer binary exe (found on PATH)
// stands for: a rustup proxy's component binary of the user's toolchain,
// resolved outside any project, else exe itself.
func RustAnalyzerExecutable(exe string) (string, error) {
	real, _, err := pinRust(exe)
	return real, err
}

// pinRust resolves rust-analyzer's executable host-side and the
// environment that pins the toolchain its children run.
func pinRust(exe string) (string, []string, error) {
	env := []string{
		"RUSTC_WRAPPER=", "RUSTC_WORKSPACE_WRAPPER=", // empty: no wrapper, whatever a configuration says
		"CARGO_BUILD_RUSTC_WRAPPER=", "CARGO_BUILD_RUSTC_WORKSPACE_WRAPPER=",
		"CARGO_ENCODED_RUSTFLAGS=", // set (even empty), it wins over RUSTFLAGS and build.rustflags
		"CARGO_NET_OFFLINE=true",
	}
	rustup, proxy := rustupOf(exe)
	if rustup == "" {
		return exe, env, nil // no rustup: cargo and rustc are what PATH has
	}
	rustc, err := rustupWhich(rustup, "rustc")
	if err != nil {
		return "", nil, fmt.Errorf("rust-analyzer: rustup has no toolchain to pin (%w); set one with `rustup default stable`", err)
	}
	bin := filepath.Dir(rustc)
	env = append(env, "RUSTUP_TOOLCHAIN="+filepath.Dir(bin), "RUSTC="+rustc)
	if cargo := filepath.Join(bin, "cargo"); isExecutable(cargo) {
		env = append(env, "CARGO="+cargo)
	}
	if !proxy {
		return exe, env, nil
	}
	real, err := rustupWhich(rustup, "rust-analyzer")
	if err != nil {
		return "", nil, &NotInstalledError{Server: Server{Name: "rust-analyzer", Install: "rustup component add rust-analyzer"},
			Detail: "the rustup proxy " + exe + " has no rust-analyzer component in the default toolchain"}
	}
	return real, env, nil
}

// rustupOf finds rustup for the executable exe: exe itself when it is a
// rustup proxy (a link to rustup, or rustup's own file under another
// name), else rustup on PATH; "" when there is none.
func rustupOf(exe string) (rustup string, proxy bool) {
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		if b := filepath.Base(real); b == "rustup" || b == "rustup-init" {
			return real, true
		}
	}
	if r := filepath.Join(filepath.Dir(exe), "rustup"); r != exe {
		a, errA := os.Stat(exe)
		b, errB := os.Stat(r)
		if errA == nil && errB == nil && os.SameFile(a, b) {
			return r, true // a hard link (rustup's default install)
		}
	}
	if r, err := exec.LookPath("rustup"); err == nil {
		return r, false
	}
	return "", false
}

// rustupWhich asks rustup which binary tool is in the user's toolchain,
// in "/" (no project's rust-toolchain.toml), with no RUSTUP_TOOLCHAIN of
// Autarch's own environment.
func rustupWhich(rustup, tool string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, rustup, "which", tool)
	cmd.Dir = "/"
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "RUSTUP_TOOLCHAIN=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			if line, _, _ := strings.Cut(strings.TrimSpace(string(ee.Stderr)), "\n"); line != "" {
				return "", fmt.Errorf("rustup which %s: %s", tool, line)
			}
		}
		return "", fmt.Errorf("rustup which %s: %w", tool, err)
	}
	p := strings.TrimSpace(string(out))
	if !filepath.IsAbs(p) || !isExecutable(p) {
		return "", fmt.Errorf("rustup which %s: %q is no executable", tool, p)
	}
	return p, nil
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

// within reports whether p is root or inside it (both resolved).
func within(root, p string) bool {
	if root == "" {
		return false
	}
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// rustConfigIn is the first file of the tree at root (its git directory
// left out) that configures rust-analyzer or cargo, relative; "" when
// there is none.
func rustConfigIn(root string) (string, error) {
	found := ""
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			return nil // unreadable: nothing a server reads either
		}
		if d.IsDir() {
			if d.Name() == ".git" && p != root {
				return filepath.SkipDir
			}
			return nil
		}
		if IsRustConfig(p) {
			found, _ = filepath.Rel(root, p)
			return filepath.SkipAll
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("rust-analyzer: looking for its configuration in %s: %w", root, err)
	}
	return filepath.ToSlash(found), nil
}

// IsRustConfig reports whether path names a file that configures
// rust-analyzer (rust-analyzer.toml) or cargo (.cargo/config[.toml]).
func IsRustConfig(path string) bool {
	switch base := filepath.Base(path); base {
	case "rust-analyzer.toml", ".rust-analyzer.toml":
		return true
	case "config", "config.toml":
		return filepath.Base(filepath.Dir(path)) == ".cargo"
	}
	return false
}
