package store

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migration is one numbered schema step.
type migration struct {
	version int
	name    string
	sql     string
}

// migrations lists the embedded migrations in order. Their names are
// NNNN_description.sql, numbered from 1 without gaps.
func migrations() []migration {
	entries, err := migrationFiles.ReadDir("migrations")
	if err != nil {
		panic(fmt.Sprintf("embedded migrations: %v", err)) // a build defect, not input
	}
	var list []migration
	for _, e := range entries {
		num, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil {
			panic(fmt.Sprintf("migration %s is not named NNNN_name.sql", e.Name()))
		}
		b, err := migrationFiles.ReadFile(path.Join("migrations", e.Name()))
		if err != nil {
			panic(fmt.Sprintf("migration %s: %v", e.Name(), err))
		}
		list = append(list, migration{version: v, name: e.Name(), sql: string(b)})
	}
	sort.Slice(list, func(i, j int) bool { return list[i].version < list[j].version })
	for i, m := range list {
		if m.version != i+1 {
			panic(fmt.Sprintf("migration %s: expected number %d", m.name, i+1))
		}
	}
	return list
}

// LatestVersion is the schema version this build migrates to.
func LatestVersion() int { return len(migrations()) }

// migrate applies the migrations above the database's version, up to
// target, each in its own IMMEDIATE transaction that re-reads the version
// (another process may be migrating the same file).
func migrate(ctx context.Context, db *sql.DB, target int) error {
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_version (
		version    INTEGER PRIMARY KEY,
		name       TEXT NOT NULL,
		applied_at INTEGER NOT NULL)`); err != nil {
		return fmt.Errorf("schema_version table: %w", err)
	}
	all := migrations()
	cur, err := schemaVersion(ctx, db)
	if err != nil {
		return err
	}
	if cur > len(all) {
		return fmt.Errorf("database schema version %d is newer than this build of autarch understands (%d): upgrade autarch", cur, len(all))
	}
	for _, m := range all[cur:target] {
		if err := applyMigration(ctx, db, m); err != nil {
			return err
		}
	}
	return nil
}

func applyMigration(ctx context.Context, db *sql.DB, m migration) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("migration %s: %w", m.name, err)
	}
	defer tx.Rollback()
	var cur int
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_version`).Scan(&cur); err != nil {
		return fmt.Errorf("migration %s: %w", m.name, err)
	}
	if cur >= m.version {
		return nil // applied meanwhile by another process
	}
	if _, err := tx.ExecContext(ctx, m.sql); err != nil {
		return fmt.Errorf("migration %s: %w", m.name, err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_version (version, name, applied_at) VALUES (?, ?, strftime('%s','now') * 1000000000)`, m.version, m.name); err != nil {
		return fmt.Errorf("migration %s: %w", m.name, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migration %s: %w", m.name, err)
	}
	return nil
}

func schemaVersion(ctx context.Context, q querier) (int, error) {
	var v int
	if err := q.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_version`).Scan(&v); err != nil {
		return 0, fmt.Errorf("schema version: %w", err)
	}
	return v, nil
}

// SchemaVersion is the database's applied schema version.
func (s *Store) SchemaVersion(ctx context.Context) (int, error) { return schemaVersion(ctx, s.db) }
