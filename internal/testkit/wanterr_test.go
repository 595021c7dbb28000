package testkit

import (
	"errors"
	"testing"
)

// WantErr passes a wanted error (reporting true) and no error where none
// is wanted (reporting false), and fails on every disagreement.
func TestWantErr(t *testing.T) {
	tests := []struct {
		name, want string
		err        error
		wanted     bool
		failWith   string // "" when WantErr must not fail
	}{
		{"no error, none wanted", "", nil, false, ""},
		{"wanted error", "not accepted", errors.New("pulse id p 1 is not accepted"), true, ""},
		{"wanted error missing", "not accepted", nil, false, `err = <nil>, want "not accepted"`},
		{"another error", "not accepted", errors.New("disk full"), false, `err = disk full, want "not accepted"`},
		{"unwanted error", "", errors.New("disk full"), false, "disk full"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &fatalRecorder{}
			var wanted bool
			if failed := rec.run(func() { wanted = WantErr(rec, tt.err, tt.want) }); failed != tt.failWith {
				t.Errorf("failure = %q, want %q", failed, tt.failWith)
			}
			if tt.failWith == "" && wanted != tt.wanted {
				t.Errorf("WantErr = %v, want %v", wanted, tt.wanted)
			}
		})
	}
}
