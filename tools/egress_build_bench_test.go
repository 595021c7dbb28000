package tools

import (
	"context"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/workspace"
)

// BenchmarkEgressSetBuild is what the first filtering of a session pays to
// file the forms of the values harvested from a tree with many test keys
// (the Go module cache when there is one, else $(go env GOROOT)/src): the
// value set as it is (table) and the old one that kept every form as a
// string (oracle), each built and searched once over a short text.
func BenchmarkEgressSetBuild(b *testing.B) {
	root := filepath.Join(runtime.GOROOT(), "src")
	if out, err := exec.Command("go", "env", "GOMODCACHE").Output(); err == nil && strings.TrimSpace(string(out)) != "" {
		root = strings.TrimSpace(string(out))
	}
	e := &Egress{}
	e.AddValues(harvestRoot(context.Background(), workspace.DefaultGate(), root)...)
	values := e.set.Load().values
	hay := []byte(strings.Repeat("func (s *Server) Serve(l net.Listener) error {\n", 100))
	b.Logf("%s: %d values", root, len(values))
	b.Run("table", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			newValueSet(values, 0).find(hay)
		}
	})
	b.Run("oracle", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			newOracleSet(values).find(hay)
		}
	})
}
