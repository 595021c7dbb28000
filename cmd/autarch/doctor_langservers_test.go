package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/langserver"
)

// TestDoctorListsLangServers: doctor says where each language server was
// found and how to install the missing ones.
func TestDoctorListsLangServers(t *testing.T) {
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "gopls"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	var out strings.Builder
	reportLangServers(&out, "== language servers", langserver.Known())
	reportLangServers(&out, "configured:", []langserver.Server{{Name: "luals", Command: []string{"lua-language-server"}, Languages: map[string]string{".lua": "lua"}, Install: "apt-get install lua-language-server"}})
	for _, want := range []string{
		"== language servers",
		"gopls (.go): " + filepath.Join(bin, "gopls"),
		"typescript-language-server (.ts .tsx .js .jsx .mjs .cjs): not found on PATH; install with `npm install -g typescript-language-server typescript`",
		"pyright (.py .pyi): not found on PATH; install with `npm install -g pyright`",
		"rust-analyzer (.rs): not found on PATH; install with `rustup component add rust-analyzer`",
		"luals (.lua): not found on PATH; install with `apt-get install lua-language-server`",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("doctor lacks %q:\n%s", want, out.String())
		}
	}
}

// TestDoctorAsksRustupOutsideTheProject: rust-analyzer installed by
// rustup is a proxy, which follows the rust-toolchain.toml of the
// directory it runs in (a project's `path` toolchain: the project's own
// program). Doctor asks rustup for the binary in "/" and runs that
// binary there; the proxy itself never runs (redteam s12 01).
func TestDoctorAsksRustupOutsideTheProject(t *testing.T) {
	bin, log := t.TempDir(), filepath.Join(t.TempDir(), "log")
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// rustup, under any name: logs how it was called and from where.
	write("rustup", "#!/bin/sh\necho \"$(basename \"$0\") $* in $PWD toolchain=$RUSTUP_TOOLCHAIN\" >> "+log+"\n"+
		"case \"$(basename \"$0\") $1 $2\" in\n"+
		"\"rustup which rustc\") echo "+bin+"/tc/rustc;;\n"+
		"\"rustup which rust-analyzer\") echo "+bin+"/tc/rust-analyzer;;\n"+
		"*) exit 1;;\nesac\n")
	if err := os.Mkdir(filepath.Join(bin, "tc"), 0o755); err != nil {
		t.Fatal(err)
	}
	write("tc/rustc", "#!/bin/sh\n")
	write("tc/rust-analyzer", "#!/bin/sh\necho \"rust-analyzer $* in $PWD\" >> "+log+"\n")
	if err := os.Symlink("rustup", filepath.Join(bin, "rust-analyzer")); err != nil {
		t.Fatal(err)
	}
	project := t.TempDir()
	if err := os.WriteFile(filepath.Join(project, "rust-toolchain.toml"), []byte("[toolchain]\npath = \"/nonexistent\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(project)
	t.Setenv("PATH", bin+":/usr/bin:/bin")
	t.Setenv("RUSTUP_TOOLCHAIN", "planted")
	var out strings.Builder
	reportLangServers(&out, "== language servers", langserver.Known())
	if want := "rust-analyzer (.rs): " + filepath.Join(bin, "tc", "rust-analyzer") + "\n"; !strings.Contains(out.String(), want) {
		t.Errorf("doctor lacks %q:\n%s", want, out.String())
	}
	data, _ := os.ReadFile(log)
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if !strings.HasSuffix(line, " in /") && !strings.HasSuffix(line, " in / toolchain=") {
			t.Errorf("run outside /, or with Autarch's RUSTUP_TOOLCHAIN: %q", line)
		}
		if strings.HasPrefix(line, "rust-analyzer --version") == false && !strings.HasPrefix(line, "rustup which ") {
			t.Errorf("the proxy ran as %q", line)
		}
	}
	if !strings.Contains(string(data), "rust-analyzer --version in /") {
		t.Errorf("the resolved binary was not asked its version:\n%s", data)
	}
}
