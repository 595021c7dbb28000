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
	tests := []struct {
		name     string
		err      error
		want     string
		expected bool
		fails    bool
	}{
		{"no error expected, none", nil, "", false, false},
		{"no error expected, one", errors.New("boom"), "", false, true},
		{"error expected, none", nil, "boom", true, true},
		{"error expected, it", errors.New("it went boom"), "boom", true, false},
		{"error expected, another", errors.New("it went bang"), "boom", true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &fatalRecorder{TB: t}
			if got := WantErr(r, tt.err, tt.want); got != tt.expected {
				t.Errorf("WantErr = %v, want %v", got, tt.expected)
			}
			if failed := len(r.fatal) > 0; failed != tt.fails {
				t.Errorf("failed = %v (%q), want %v", failed, r.fatal, tt.fails)
			}
		})
	}
}
