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
