package testkit

import (
	"strings"
	"testing"
)

// WantErr checks err in a table test whose case expects an error holding
// want ("" when the case expects none). It fails the test when err is
// not what the case expects, and reports whether an error was expected,
// so that the case stops there:
//
//	got, err := Parse(tt.in)
//	if testkit.WantErr(t, err, tt.wantErr) {
//		return
//	}
func WantErr(t testing.TB, err error, want string) bool {
	t.Helper()
	if want == "" {
		if err != nil {
			t.Fatal(err)
		}
		return false
	}
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v, want %q", err, want)
	}
	return true
}
