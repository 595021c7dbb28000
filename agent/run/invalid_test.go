package run_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/autarch-dev/autarch/agent/run"
)

// TestInvalid: a request the user can fix keeps its message and cause and
// says so to the transports (Invalid() true, through wrapping too); nil
// stays nil.
func TestInvalid(t *testing.T) {
	if err := run.Invalid(nil); err != nil {
		t.Fatalf("Invalid(nil) = %v, want nil", err)
	}
	cause := errors.New("workflow nope not found")
	err := fmt.Errorf("revert: %w", run.Invalid(cause))
	var inv interface{ Invalid() bool }
	if !errors.As(err, &inv) || !inv.Invalid() {
		t.Errorf("%v does not say it is invalid", err)
	}
	if !errors.Is(err, cause) || err.Error() != "revert: workflow nope not found" {
		t.Errorf("Invalid lost its cause or message: %v", err)
	}
}
