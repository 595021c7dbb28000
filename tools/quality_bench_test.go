package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/tools/verify"
)

// goTree writes a Go module of n packages p000…: package i imports
// p(i-1) and p(i/2) (a deep, layered graph like a real tree's), with a
// few hundred lines of code and a test each.
func goTree(b *testing.B, n int) string {
	dir := b.TempDir()
	files := map[string]string{"go.mod": "module example.com/tree\n\ngo 1.22\n"}
	for i := range n {
		var imports, uses []string
		for _, j := range []int{i - 1, i / 2} {
			if j >= 0 && j < i && !strings.Contains(strings.Join(imports, " "), fmt.Sprintf("p%03d\"", j)) {
				imports = append(imports, fmt.Sprintf("\"example.com/tree/p%03d\"", j))
				uses = append(uses, fmt.Sprintf("p%03d.F0(x)", j))
			}
		}
		var src strings.Builder
		fmt.Fprintf(&src, "package p%03d\n\nimport (\n\t\"strings\"\n", i)
		for _, imp := range imports {
			fmt.Fprintf(&src, "\t%s\n", imp)
		}
		src.WriteString(")\n\n")
		fmt.Fprintf(&src, "// F0 uses the packages below.\nfunc F0(x int) int {\n\ts := x\n")
		for _, u := range uses {
			fmt.Fprintf(&src, "\ts += %s\n", u)
		}
		src.WriteString("\treturn s + len(strings.Repeat(\"x\", x%3))\n}\n")
		for f := 1; f < 20; f++ {
			fmt.Fprintf(&src, "\n// F%d is filler of realistic size.\nfunc F%d(xs []int) (sum int) {\n\tfor i, x := range xs {\n\t\tif i%%%d == 0 {\n\t\t\tsum += x * %d\n\t\t} else {\n\t\t\tsum -= x\n\t\t}\n\t}\n\treturn sum\n}\n", f, f, f+1, f)
		}
		files[fmt.Sprintf("p%03d/p.go", i)] = src.String()
		files[fmt.Sprintf("p%03d/p_test.go", i)] = fmt.Sprintf("package p%03d\n\nimport \"testing\"\n\nfunc TestF1(t *testing.T) {\n\tif F1([]int{1, 2}) != -1 {\n\t\tt.Fatal(F1([]int{1, 2}))\n\t}\n}\n", i)
	}
	for rel, content := range files {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

// BenchmarkQualityGates measures a pulse's gate run (build, test, lint)
// after a one-file change, in the sandbox, with warm build and test
// caches: the whole module against only the packages the change
// affects. "leaf" changes a package nothing imports; "root" one that
// every other package depends on (affected-only then runs everything).
func BenchmarkQualityGates(b *testing.B) {
	for _, size := range []int{3, 200} {
		dir := goTree(b, size)
		s, err := NewSession(SessionConfig{Root: dir, Role: "pulsing", Mode: ModeYolo})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		edits := 0
		for _, which := range []struct {
			name string
			pkg  int
		}{{"leaf", size - 1}, {"root", 0}} {
			changed := fmt.Sprintf("p%03d/p.go", which.pkg)
			for _, full := range []bool{true, false} {
				mode := "affected"
				if full {
					mode = "full"
				}
				b.Run(fmt.Sprintf("packages=%d/change=%s/%s", size, which.name, mode), func(b *testing.B) {
					edit := func() {
						edits++
						f, err := os.OpenFile(filepath.Join(dir, changed), os.O_APPEND|os.O_WRONLY, 0)
						if err != nil {
							b.Fatal(err)
						}
						fmt.Fprintf(f, "\nfunc edit%d() {}\n", edits)
						f.Close()
					}
					edit()
					if run := s.QualityGates(context.Background(), verify.Gates{Full: full}, []string{changed}); run.Failed() {
						b.Fatalf("warm-up gate run failed: %+v", run.Reports)
					}
					b.ResetTimer()
					for range b.N {
						b.StopTimer()
						edit() // a new change each time: the changed package's build and test results are not cached
						b.StartTimer()
						run := s.QualityGates(context.Background(), verify.Gates{Full: full}, []string{changed})
						if run.Failed() {
							b.Fatalf("gate run failed: %+v", run.Reports)
						}
					}
				})
			}
		}
	}
}
