package testkit

import (
	"bytes"
	"os"
	"testing"
)

// Golden compares got with the golden file at path. With update (the
// test's own -update flag) it writes got there instead: a wanted change
// is accepted by running the test again with -update, after checking it.
func Golden(t testing.TB, path string, got []byte, update bool) {
	t.Helper()
	if update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	rerun := "go test -run '^" + t.Name() + "$' -update"
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v: write it with %s", err, rerun)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is out of date; if the change is intended, accept it with %s\n--- %s\n%s\n--- got\n%s", path, rerun, path, want, got)
	}
}
