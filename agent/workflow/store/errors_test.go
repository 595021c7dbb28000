package store

import (
	"context"
	"errors"
	"testing"

	sqlite3 "modernc.org/sqlite/lib"
)

// TestCreateWorkflowConflicts: a name already used is ErrNameUsed, found by
// the SQLite result code (not its message), also inside a transaction; a
// clashing id is another constraint and says so.
func TestCreateWorkflowConflicts(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	w := newWorkflow(t, s, "feature-x")

	err := s.CreateWorkflow(ctx, &Workflow{Name: "feature-x", Stage: "scoping"})
	if !errors.Is(err, ErrNameUsed) || err.Error() != `workflow name "feature-x" is already used: choose another` {
		t.Errorf("duplicate name: %v", err)
	}
	err = s.Update(ctx, func(tx *Tx) error { return tx.CreateWorkflow(ctx, &Workflow{Name: "feature-x", Stage: "scoping"}) })
	if !errors.Is(err, ErrNameUsed) {
		t.Errorf("duplicate name in a transaction: %v", err)
	}
	err = s.CreateWorkflow(ctx, &Workflow{ID: w.ID, Name: "feature-y", Stage: "scoping"})
	if err == nil || errors.Is(err, ErrNameUsed) || sqliteCode(err) != sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY {
		t.Errorf("duplicate id: %v (code %d)", err, sqliteCode(err))
	}
}

func TestSQLiteCode(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	_, err := s.db.ExecContext(ctx, `SELECT * FROM no_such_table`)
	if got := sqliteCode(err); got != sqlite3.SQLITE_ERROR {
		t.Errorf("code of %v = %d, want SQLITE_ERROR", err, got)
	}
	if got := sqliteCode(errors.New("UNIQUE constraint failed: workflows.name")); got != 0 {
		t.Errorf("code of a plain error = %d", got)
	}
}
