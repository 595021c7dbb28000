// Package store keeps the durable records of the workflow engine in SQLite
// (modernc.org/sqlite, pure Go): workflows, scope cards, research findings,
// plans and their pulses, preflight setups and baselines, review cards and
// comments, notes, messages, tool calls, usage, and pending questions and
// approvals (the data model of spec/pulsing-phase.md and the block tools of
// spec/autarch-tools.md).
//
// The database runs in WAL mode with synchronous=FULL, a busy timeout,
// foreign keys on, and BEGIN IMMEDIATE transactions, so concurrent writers
// queue instead of failing and a killed process leaves only whole
// transactions. The schema is created and upgraded by numbered migrations
// recorded in the schema_version table.
//
// Every method of Store is one transaction. Store.Update runs several
// writes as one: the *Tx it passes has the same methods.
package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"modernc.org/sqlite" // also the "sqlite" database/sql driver
)

// FileName is the database's file name in the state directory.
const FileName = "workflows.db"

// busyTimeout is how long a writer waits for another to finish.
const busyTimeout = 10 * time.Second

// ErrNotFound is returned (wrapped) when a record does not exist.
var ErrNotFound = errors.New("not found")

// ErrNameUsed is returned, wrapped, by CreateWorkflow when another workflow
// has the name.
var ErrNameUsed = errors.New("already used")

// querier is what both *sql.DB and *sql.Tx offer.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// ops holds the record operations; Store and Tx both embed it, so both
// have every method. Inside a Tx, db is nil and q is the transaction.
type ops struct {
	q      querier
	db     *sql.DB
	now    func() time.Time
	redact Redactor
}

// atomic runs fn in a transaction (or in the surrounding one).
func (o ops) atomic(ctx context.Context, fn func(ops) error) error {
	if o.db == nil {
		return fn(o)
	}
	tx, err := o.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin transaction: %w", err)
	}
	if err := fn(ops{q: redacting(tx, o.redact), now: o.now, redact: o.redact}); err != nil {
		if rerr := tx.Rollback(); rerr != nil {
			return errors.Join(err, fmt.Errorf("rollback: %w", rerr))
		}
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit transaction: %w", err)
	}
	return nil
}

// Store is the workflow database. It is safe for concurrent use, also by
// several processes.
type Store struct {
	ops
	path string
}

// Tx is a transaction of Store.Update. It has every record method of Store;
// it must not be used after the function returns.
type Tx struct {
	ops
}

// Options tune Open.
type Options struct {
	// Now is the clock (time.Now when nil); tests pin it.
	Now func() time.Time
	// Redact, when not nil, filters every text the store writes (tool
	// calls' arguments and results, messages, notes, cards): the egress
	// gate's stored-record side (tools.Egress).
	Redact Redactor
}

// Redactor masks secrets in a text, inside its strings when it is JSON
// (tools.Egress.Auto).
type Redactor interface {
	Auto(string) string
}

// Path is the database path in a state directory.
func Path(stateDir string) string { return filepath.Join(stateDir, FileName) }

// Open opens (creating if needed) the database at path and migrates it to
// the latest schema.
func Open(ctx context.Context, path string, opts Options) (*Store, error) {
	db, abs, err := openDB(ctx, path)
	if err != nil {
		return nil, err
	}
	if err := migrate(ctx, db, len(migrations())); err != nil {
		db.Close()
		return nil, fmt.Errorf("open store %s: %w", abs, err)
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	return &Store{ops: ops{q: redacting(db, opts.Redact), db: db, now: now, redact: opts.Redact}, path: abs}, nil
}

// openDB opens the database file with the connection settings, without
// migrating it.
func openDB(ctx context.Context, path string) (*sql.DB, string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, "", fmt.Errorf("open store: %w", err)
	}
	if strings.ContainsAny(abs, "?#") {
		return nil, "", fmt.Errorf("open store: path %q must not contain '?' or '#'", abs)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return nil, "", fmt.Errorf("open store: %w", err)
	}
	dsn := fmt.Sprintf("%s?_busy_timeout=%d&_journal_mode=WAL&_synchronous=FULL&_foreign_keys=1&_txlock=immediate",
		abs, busyTimeout.Milliseconds())
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, "", fmt.Errorf("open store %s: %w", abs, err)
	}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, "", fmt.Errorf("open store %s: %w", abs, err)
	}
	return db, abs, nil
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// File is the database file's path.
func (s *Store) File() string { return s.path }

// Update runs fn in one transaction: all of its writes happen or none.
func (s *Store) Update(ctx context.Context, fn func(tx *Tx) error) error {
	return s.atomic(ctx, func(o ops) error { return fn(&Tx{ops: o}) })
}

// sqliteCode is the extended result code of the SQLite error in err's
// chain (sqlite3.SQLITE_CONSTRAINT_UNIQUE, …), 0 when there is none.
func sqliteCode(err error) int {
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code()
	}
	return 0
}

// newID returns a random id with a kind prefix, e.g. "wf-1f2e3d4c5b6a7980".
func newID(prefix string) string {
	var b [8]byte
	rand.Read(b[:]) // never fails: crypto/rand crashes the program instead
	return prefix + "-" + hex.EncodeToString(b[:])
}

// ensureID gives a record that has no id a new one with prefix.
func ensureID(id *string, prefix string) {
	if *id == "" {
		*id = newID(prefix)
	}
}

// stamp is a time as stored: UTC Unix nanoseconds, NULL when zero.
func stamp(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixNano()
}

// stampTo scans a stamp column (see stamp; NULL is the zero time) into *t.
func stampTo(t *time.Time) sql.Scanner { return stampScanner{t} }

type stampScanner struct{ t *time.Time }

func (s stampScanner) Scan(src any) error {
	var v sql.NullInt64
	if err := v.Scan(src); err != nil {
		return err
	}
	*s.t = time.Time{}
	if v.Valid {
		*s.t = time.Unix(0, v.Int64).UTC()
	}
	return nil
}

// clock is the current time in UTC.
func (o ops) clock() time.Time { return o.now().UTC() }

// toJSON encodes a value for a JSON column.
func toJSON(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("encode: %w", err)
	}
	return string(b), nil
}

// fromJSON decodes a JSON column ("" and "null" leave v alone).
func fromJSON(s string, v any) error {
	if s == "" || s == "null" {
		return nil
	}
	if err := json.Unmarshal([]byte(s), v); err != nil {
		return fmt.Errorf("decode: %w", err)
	}
	return nil
}

// nullString stores "" as NULL.
func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// rawJSON stores an empty raw message as NULL.
func rawJSON(m json.RawMessage) any {
	if len(m) == 0 {
		return nil
	}
	return string(m)
}

// exec runs a write; its error says what was being done ("add job
// commit: ...").
func (o ops) exec(ctx context.Context, what, query string, args ...any) error {
	_, err := o.execRes(ctx, what, query, args...)
	return err
}

// execOne runs a write meant to change one row, the kind record id: its
// error says what was being done, and no row changed is ErrNotFound.
func (o ops) execOne(ctx context.Context, what, kind, id, query string, args ...any) error {
	res, err := o.execRes(ctx, what, query, args...)
	if err != nil {
		return err
	}
	return expectOne(res, kind, id)
}

func (o ops) execRes(ctx context.Context, what, query string, args ...any) (sql.Result, error) {
	res, err := o.q.ExecContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return res, nil
}

// expectOne turns "no row changed" into ErrNotFound.
func expectOne(res sql.Result, what, id string) error {
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("%s %q: %w", what, id, ErrNotFound)
	}
	return nil
}

// notFound wraps sql.ErrNoRows as ErrNotFound.
func notFound(err error, what, id string) error {
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("%s %q: %w", what, id, ErrNotFound)
	}
	return fmt.Errorf("%s %q: %w", what, id, err)
}

// redacting is q with every text argument of its writes (INSERT, UPDATE,
// REPLACE) filtered by r; q itself when r is nil. Reads are left alone:
// their arguments are keys, not content.
func redacting(q querier, r Redactor) querier {
	if r == nil {
		return q
	}
	return redactQuerier{q: q, r: r}
}

type redactQuerier struct {
	q querier
	r Redactor
}

func (rq redactQuerier) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return rq.q.ExecContext(ctx, query, rq.clean(query, args)...)
}

func (rq redactQuerier) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return rq.q.QueryContext(ctx, query, rq.clean(query, args)...)
}

func (rq redactQuerier) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return rq.q.QueryRowContext(ctx, query, rq.clean(query, args)...)
}

// clean filters the text arguments of a write.
func (rq redactQuerier) clean(query string, args []any) []any {
	verb, _, _ := strings.Cut(strings.TrimSpace(query), " ")
	switch strings.ToUpper(verb) {
	case "INSERT", "UPDATE", "REPLACE":
	default:
		return args
	}
	var out []any
	for i, a := range args {
		var f any
		switch v := a.(type) {
		case string:
			if c := rq.r.Auto(v); c != v {
				f = c
			}
		case []byte:
			if c := rq.r.Auto(string(v)); c != string(v) {
				f = []byte(c)
			}
		case json.RawMessage:
			if c := rq.r.Auto(string(v)); c != string(v) {
				f = c
			}
		case sql.NullString:
			if c := rq.r.Auto(v.String); v.Valid && c != v.String {
				f = sql.NullString{String: c, Valid: true}
			}
		}
		if f == nil {
			continue
		}
		if out == nil {
			out = append([]any(nil), args...)
		}
		out[i] = f
	}
	if out == nil {
		return args
	}
	return out
}
