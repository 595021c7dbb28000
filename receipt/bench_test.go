package receipt

import (
	"context"
	"testing"

	"github.com/autarch-dev/autarch/tools/verify"
)

// BenchmarkVerify is `autarch receipt verify` on a small Go module's
// checkpoint: a temporary worktree, go build, go test and go vet in the
// sandbox (warm build cache), the comparison, the worktree removed.
func BenchmarkVerify(b *testing.B) {
	repo, commit := repoWith(b, map[string]string{
		"go.mod":       "module example.com/small\n\ngo 1.22\n",
		"calc.go":      "package small\n\n// Add adds.\nfunc Add(a, b int) int { return a + b }\n",
		"calc_test.go": "package small\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"Add\")\n\t}\n}\n",
	})
	gates := sandboxGates(b, repo)
	rec := runOn(b, repo, commit, verify.Gates{}, gates)
	if len(rec.Checks) != 3 {
		b.Fatalf("recorded checks = %+v", rec.Checks)
	}
	ctx := context.Background()
	for b.Loop() {
		res, err := Verify(ctx, repo, commit, Options{Gates: gates})
		if err != nil || !res.OK {
			b.Fatalf("verify: %v\n%s", err, res.Text())
		}
	}
}
