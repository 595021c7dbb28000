package testkit

import (
	"errors"
	"fmt"
	"testing"
)

// fatalRecorder records Fatal calls instead of stopping the test.
type fatalRecorder struct {
	testing.TB
	fatal []string
}

func (r *fatalRecorder) Helper()           {}
func (r *fatalRecorder) Fatal(args ...any) { r.fatal = append(r.fatal, fmt.Sprint(args...)) }
func (r *fatalRecorder) Fatalf(format string, args ...any) {
	r.fatal = append(r.fatal, fmt.Sprintf(format, args...))
}

// WantErr fails the test unless err is what the case expects, and says
// whether the case expected an error.
func TestWantErr(t *testing.T) {
	check := func(err error, want string, expected, fails bool) {
		t.Helper()
		r := &fatalRecorder{TB: t}
		if got := WantErr(r, err, want); got != expected {
			t.Errorf("WantErr(%v, %q) = %v, want %v", err, want, got, expected)
		}
		if failed := len(r.fatal) > 0; failed != fails {
			t.Errorf("WantErr(%v, %q) failed the test: %v (%q), want %v", err, want, failed, r.fatal, fails)
		}
	}
	check(nil, "", false, false)
	check(errors.New("boom"), "", false, true)
	check(nil, "boom", true, true)
	check(errors.New("it went boom"), "boom", true, false)
	check(errors.New("it went bang"), "boom", true, true)
}
