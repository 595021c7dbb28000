package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// benchGateTest is a test of some CPU: hashing MiB mebibytes
// (AUTARCH_BENCH_GATE_MIB, 64 by default).
const benchGateTest = `package PKG

import (
	"crypto/sha256"
	"testing"
)

func TestWork(t *testing.T) {
	buf := make([]byte, 1<<20)
	h := sha256.New()
	for range MIB {
		h.Write(buf)
	}
	t.Logf("%x", h.Sum(nil))
}
`

// BenchmarkGateTwice measures the CPU (user+sys, of every process of the
// sandbox) of a full gate's go test run twice over an unchanged module
// of four packages, with a fresh gates' cache each time (over the user's
// build cache): cpu-s/op is both runs', again-cpu-s/op the second's.
func BenchmarkGateTwice(b *testing.B) {
	cmd := exec.Command("go", "env", "GOCACHE")
	cmd.Env = append(os.Environ(), "GOFLAGS=")
	out, err := cmd.Output()
	if err != nil {
		b.Fatalf("go env: %v", err)
	}
	b.Setenv("GOCACHE", strings.TrimSpace(string(out)))
	mib := os.Getenv("AUTARCH_BENCH_GATE_MIB")
	if mib == "" {
		mib = "64"
	}
	root := b.TempDir()
	b.Setenv("HOME", filepath.Join(root, "home"))
	sb, err := NewBwrap(context.Background(), Options{})
	if err != nil {
		b.Fatalf("NewBwrap: %v", err)
	}
	if st := sb.Probe(context.Background()); !st.Available {
		b.Fatalf("probe: %v", st)
	}
	dir := filepath.Join(root, "work")
	files := map[string]string{"go.mod": "module example.com/m\n\ngo 1.24\n"}
	for _, p := range []string{"a", "b", "c", "d"} {
		files[p+"/"+p+"_test.go"] = strings.NewReplacer("PKG", p, "MIB", mib).Replace(benchGateTest)
	}
	for p, content := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(content), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	own := filepath.Join(root, "caches")
	// bash's times: the CPU of the shell's waited-for descendants (the go
	// command, the compiler, the linker, the -exec program and the test
	// binaries) on its second line.
	spec := Spec{Dir: dir, Command: "go test -json -vet=off ./... >/dev/null; rc=$?; times; exit $rc", Caches: sb.DefaultCaches(), OwnCaches: own,
		BuildCache: filepath.Join(own, "go-build"), Gate: true, Timeout: 5 * time.Minute}
	run := func() time.Duration {
		res, err := sb.Run(context.Background(), spec)
		if err != nil || res.ExitCode != 0 {
			b.Fatalf("the gate: %v %+v", err, res)
		}
		lines := strings.Split(strings.TrimSpace(res.Stdout), "\n")
		f := strings.Fields(lines[len(lines)-1])
		if len(f) != 2 {
			b.Fatalf("times: %q", res.Stdout)
		}
		var cpu time.Duration
		for _, v := range f {
			d, err := time.ParseDuration(v)
			if err != nil {
				b.Fatalf("times: %q: %v", res.Stdout, err)
			}
			cpu += d
		}
		return cpu
	}
	var total, again time.Duration
	for i := 0; b.Loop(); i++ {
		spec.GateCache = filepath.Join(root, "gates", fmt.Sprint(i), "go-build")
		first := run()
		second := run()
		total += first + second
		again += second
	}
	b.ReportMetric(total.Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(again.Seconds()/float64(b.N), "again-cpu-s/op")
}
