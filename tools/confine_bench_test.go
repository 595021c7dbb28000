package tools

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// BenchmarkSecretFiles measures what deciding a command's masks costs on a
// tree (AUTARCH_MASK_CORPUS, default $(go env GOROOT)/src): the first
// command scans every file's content, later ones only stat unchanged files.
func BenchmarkSecretFiles(b *testing.B) {
	dir := os.Getenv("AUTARCH_MASK_CORPUS")
	if dir == "" {
		dir = filepath.Join(runtime.GOROOT(), "src")
	}
	s, err := NewSession(SessionConfig{Root: dir})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	b.Run("first", func(b *testing.B) {
		for b.Loop() {
			s.confine.state.Close()
			s.confine.state = nil
			if _, err := s.secretFiles(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("again", func(b *testing.B) {
		masked := 0
		for b.Loop() {
			m, err := s.secretFiles()
			if err != nil {
				b.Fatal(err)
			}
			masked = len(m)
		}
		b.ReportMetric(float64(masked), "masked")
	})
}
