package testkit

import (
	"strings"
	"testing"
)

// WantErr checks err against want, a part of the error message a test
// case expects ("" when it expects none). It fails t at once when an
// error was wanted and none came or its message lacks want, and when an
// error came that was not wanted. It reports whether an error was wanted
// (and came), so that a table test's case ends there:
//
//	got, err := Parse(tt.in)
//	if testkit.WantErr(t, err, tt.wantErr) {
//		return
//	}
//	// check got
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
