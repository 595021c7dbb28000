package verify

import (
	"context"
	"testing"
	"time"
)

// TestGoCommandMarksTheGoChecksOnly: Exec learns which commands are the
// go command alone (they may build with the gates' kept Go build cache):
// the detected go build, go test, go vet and go list, never golangci-lint
// (it loads the repository's plugins) nor a configured command (it runs
// the repository's Makefile).
func TestGoCommandMarksTheGoChecksOnly(t *testing.T) {
	got := map[string]bool{}
	exec := func(ctx context.Context, dir, command string, timeout time.Duration) (Output, error) {
		got[command] = GoCommand(ctx)
		return Output{Stdout: `{"ImportPath":"example.com/p","Dir":"/r","Module":{"Dir":"/r"}}`}, nil
	}
	d := Detector{Root: t.TempDir(), LookPath: func(string) (string, error) { return "/bin/true", nil }}
	checks := append(d.goChecks("."), Configured(Test, "make test"),
		Check{Name: "golangci-lint", Kind: Lint, Dir: ".", parse: parseCompiler, command: func(Target) string { return "golangci-lint run" }})
	for _, c := range checks {
		Run(context.Background(), exec, c, Target{}, time.Minute)
	}
	if _, err := goAffected(context.Background(), exec, d.Root, ".", []string{"x.go"}, time.Minute); err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{
		"go build -o /dev/null ./...": true, "go test -json -vet=off ./...": true, "go vet ./...": true,
		"go list -e -json=ImportPath,Dir,Imports,TestImports,XTestImports,Module ./...": true,
		"make test": false, "golangci-lint run": false,
	}
	for cmd, w := range want {
		if g, ok := got[cmd]; !ok || g != w {
			t.Errorf("%q: GoCommand %v (ran: %v), want %v", cmd, g, ok, w)
		}
	}
}
