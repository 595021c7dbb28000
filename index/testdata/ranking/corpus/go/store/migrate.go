// Package store applies SQL schema migrations.
package store

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
)

// Migration is one numbered schema change.
type Migration struct {
	Version int
	SQL     string
}

// Migrate applies the migrations newer than the database's schema version,
// each in its own transaction, in version order.
func Migrate(ctx context.Context, db *sql.DB, ms []Migration) error {
	sort.Slice(ms, func(i, j int) bool { return ms[i].Version < ms[j].Version })
	var current int
	if err := db.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_version`).Scan(&current); err != nil {
		return fmt.Errorf("reading schema version: %w", err)
	}
	for _, m := range ms {
		if m.Version <= current {
			continue
		}
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
			tx.Rollback()
			return fmt.Errorf("migration %d: %w", m.Version, err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_version (version) VALUES (?)`, m.Version); err != nil {
			tx.Rollback()
			return err
		}
		if err := tx.Commit(); err != nil {
			return err
		}
	}
	return nil
}
