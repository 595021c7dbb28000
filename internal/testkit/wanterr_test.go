package testkit

import (
	"errors"
	"fmt"
	"runtime"
	"testing"
)

// fatalRecorder is a testing.TB whose Fatal and Fatalf record the failure
// and end the goroutine, as the testing package's do.
type fatalRecorder struct {
	testing.TB
	failed string
}

func (r *fatalRecorder) Helper() {}
func (r *fatalRecorder) Fatal(args ...any) {
	r.failed = fmt.Sprint(args...)
	runtime.Goexit()
}
func (r *fatalRecorder) Fatalf(format string, args ...any) {
	r.failed = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// WantErr passes a wanted error (reporting true) and no error where none
// is wanted (reporting false), and fails on every disagreement.
func TestWantErr(t *testing.T) {
	tests := []struct {
		name     string
		err      error
		want     string
		wanted   bool
		failWith string // "" when WantErr must not fail
	}{
		{"no error, none wanted", nil, "", false, ""},
		{"wanted error", errors.New("pulse id p 1 is not accepted"), "not accepted", true, ""},
		{"wanted error missing", nil, "not accepted", false, `err = <nil>, want "not accepted"`},
		{"another error", errors.New("disk full"), "not accepted", false, `err = disk full, want "not accepted"`},
		{"unwanted error", errors.New("disk full"), "", false, "disk full"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &fatalRecorder{}
			var wanted bool
			done := make(chan struct{})
			go func() {
				defer close(done)
				wanted = WantErr(rec, tt.err, tt.want)
			}()
			<-done
			if rec.failed != tt.failWith {
				t.Errorf("failure = %q, want %q", rec.failed, tt.failWith)
			}
			if tt.failWith == "" && wanted != tt.wanted {
				t.Errorf("WantErr = %v, want %v", wanted, tt.wanted)
			}
		})
	}
}
