package testkit

import (
	"strings"
	"testing"
)

// WantErr checks a table test case's error: want "" means none (any
// error is fatal), otherwise err's text must contain want. It reports
// whether the case is done, having wanted (and got) an error, so that
// only cases without one go on to check their result:
//
//	got, err := Parse(tt.in)
//	if testkit.WantErr(t, err, tt.wantErr) {
//		return
//	}
func WantErr(t testing.TB, err error, want string) (done bool) {
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
