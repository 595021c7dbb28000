package workspace

import (
	"errors"
	"testing"
)

// TestExplainMatchesByIdentity: os.Root's escape error becomes ErrOutside;
// another error that only says the same words does not.
func TestExplainMatchesByIdentity(t *testing.T) {
	if rootEscapeError() == nil {
		t.Fatal("os.Root's escape error was not found")
	}
	r := openRoot(t, t.TempDir())
	_, rootErr := r.root.Lstat("../x")
	if err := explain("../x", rootErr); !errors.Is(err, ErrOutside) {
		t.Errorf("explain(os.Root's escape) = %v, want ErrOutside", err)
	}
	lookalike := errors.New("git: path escapes from parent")
	if err := explain("x", lookalike); err != lookalike {
		t.Errorf("explain(a look-alike message) = %v, want it unchanged", err)
	}
}
