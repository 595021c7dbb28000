package tools

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRustTreeCodeNeverRuns (redteam s12 01): rust-analyzer is confined by
// its initializationOptions (no build scripts, no proc macros, no check on
// save), but what runs is decided before those are read:
//
//   - `rustup component add rust-analyzer` (the install Autarch names)
//     puts a rustup proxy on PATH, and a proxy picks its toolchain from
//     the rust-toolchain.toml of the directory it starts in: a `path`
//     toolchain in the tree makes the tree's bin/rust-analyzer the
//     language server itself;
//   - rust-analyzer runs `cargo metadata` (and cargo through the same
//     proxy), and cargo runs the tree's .cargo/config.toml build.rustc
//     (or rustc-wrapper) to learn the target.
//
// Either way the agent's program runs in the server's sandbox, which lives
// for the whole run with the masks of the moment it started. Each planted
// program leaves a mark in the repository's own npm cache (writable in
// every sandbox, the server's too) and exits.
func TestRustTreeCodeNeverRuns(t *testing.T) {
	t.Skip("redteam s12 01: open, see report")
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("bubblewrap is not installed")
	}
	if _, err := exec.LookPath("rust-analyzer"); err != nil {
		t.Skip("rust-analyzer is not installed")
	}
	for _, route := range []string{"rust-toolchain.toml", ".cargo/config.toml"} {
		t.Run(route, func(t *testing.T) {
			if route == ".cargo/config.toml" {
				// cargo is only run by a real server (a proxy without the
				// component is refused before).
				v := exec.Command("rust-analyzer", "--version")
				v.Dir = t.TempDir()
				if err := v.Run(); err != nil {
					t.Skip("rust-analyzer is a rustup proxy without its component (`rustup component add rust-analyzer`)")
				}
			}
			dir := t.TempDir()
			gitRepoT(t, dir, map[string]string{
				"Cargo.toml":  "[package]\nname = \"p\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
				"src/main.rs": "fn add(a: i32, b: i32) -> i32 { a + b }\nfn main() { println!(\"{}\", add(1, 2)); }\n",
				".gitignore":  "target/\n",
			})
			mark := "#!/bin/sh\n: > \"$npm_config_cache/../planted-" + strings.ReplaceAll(route, "/", "_") + "-$(basename \"$0\")\"\nexit 3\n"
			files := map[string]string{}
			switch route {
			case "rust-toolchain.toml":
				// A path toolchain: absolute (rustup refuses a relative one);
				// the agent knows its worktree's path (pwd).
				files["rust-toolchain.toml"] = "[toolchain]\npath = \"" + filepath.Join(dir, "tc") + "\"\n"
				for _, b := range []string{"rust-analyzer", "cargo", "rustc"} {
					files["tc/bin/"+b] = mark
				}
			case ".cargo/config.toml":
				files[".cargo/config.toml"] = "[build]\nrustc = \"tools/rustc\"\n" // relative to the tree
				files["tools/rustc"] = mark
			}
			writeFiles(t, dir, files)
			for name := range files {
				if strings.Contains(name, "bin/") || strings.HasPrefix(name, "tools/") {
					if err := os.Chmod(filepath.Join(dir, name), 0o755); err != nil {
						t.Fatal(err)
					}
				}
			}
			h := newHarness(t, "pulsing", SessionConfig{Root: dir})
			h.call("document_symbols", map[string]any{"path": "src/main.rs"})
			h.s.Close()
			var ran []string
			_ = filepath.WalkDir(filepath.Join(dir, ".git"), func(p string, d fs.DirEntry, err error) error {
				if err == nil && strings.HasPrefix(d.Name(), "planted-") {
					ran = append(ran, d.Name())
				}
				return nil
			})
			if len(ran) > 0 {
				t.Fatalf("the language server ran the tree's own programs (%s): the agent's code runs in the server's sandbox for the whole run", strings.Join(ran, ", "))
			}
		})
	}
}
