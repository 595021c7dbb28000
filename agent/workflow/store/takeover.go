package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
)

// A fleet run's durable state travels between machines as a consistent
// copy of its worker's store (each fleet run has a clone, and so a store,
// of its own): Snapshot takes it, CheckSnapshot refuses a file that is not
// one of ours, and Store.Takeover fits an adopted copy to the machine that
// resumes the run.

// Snapshot writes a consistent copy of the whole store to dest (which
// must not exist), while other connections go on writing.
func (s *Store) Snapshot(ctx context.Context, dest string) error {
	if _, err := s.db.ExecContext(ctx, `VACUUM INTO ?`, dest); err != nil {
		return fmt.Errorf("snapshot of the store: %w", err)
	}
	return nil
}

// CheckSnapshot checks that file is a store another machine saved, before
// it is opened as one: a whole SQLite database whose schema is exactly
// this build's at its version (no trigger, view or table of its own), and
// whose rows keep their references. The rows' values are the caller's to
// validate: they are as hostile as any input.
func CheckSnapshot(ctx context.Context, file string) error {
	db, _, err := openDB(ctx, file)
	if err != nil {
		return err
	}
	defer db.Close()
	var version int
	if err := db.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_version`).Scan(&version); err != nil {
		return fmt.Errorf("the state is not a workflow store: %w", err)
	}
	if version < 1 || version > LatestVersion() {
		return fmt.Errorf("the state's schema version %d is not one this build knows (1 to %d)", version, LatestVersion())
	}
	want, err := schemaAt(ctx, version)
	if err != nil {
		return err
	}
	got, err := schema(ctx, db)
	if err != nil {
		return err
	}
	if !slices.Equal(got, want) {
		return fmt.Errorf("the state's schema is not this build's at version %d", version)
	}
	var ok string
	if err := db.QueryRowContext(ctx, `PRAGMA integrity_check(1)`).Scan(&ok); err != nil || ok != "ok" {
		return fmt.Errorf("the state is damaged: %s %v", ok, err)
	}
	rows, err := db.QueryContext(ctx, `PRAGMA foreign_key_check`)
	if err != nil {
		return fmt.Errorf("the state's references: %w", err)
	}
	broken := rows.Next()
	rows.Close()
	if broken {
		return fmt.Errorf("the state has rows whose references are broken")
	}
	return nil
}

// schemaAt is the schema a fresh store has at version.
func schemaAt(ctx context.Context, version int) ([]string, error) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1) // one connection: one in-memory database
	if err := migrate(ctx, db, version); err != nil {
		return nil, err
	}
	return schema(ctx, db)
}

// schema lists a database's objects (type, name, table, SQL), sorted.
func schema(ctx context.Context, db *sql.DB) ([]string, error) {
	rows, err := db.QueryContext(ctx, `SELECT type, name, tbl_name, COALESCE(sql, '') FROM sqlite_master ORDER BY type, name`)
	if err != nil {
		return nil, fmt.Errorf("the state's schema: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var typ, name, table, text string
		if err := rows.Scan(&typ, &name, &table, &text); err != nil {
			return nil, err
		}
		out = append(out, strings.Join([]string{typ, name, table, text}, "\x00"))
	}
	return out, rows.Err()
}

// Takeover is how an adopted store is fitted to the machine that resumes
// its run: its worktree paths name another machine's disk, and work
// after its last pushed checkpoint was lost with that machine.
type Takeover struct {
	// WorkflowTree is where a workflow's worktree goes here.
	WorkflowTree func(name string) string
	// JobTree is where a job's worktree goes here.
	JobTree func(id string) string
	// Landed reports whether a pulse's checkpoint commit is on the run's
	// branch as it was fetched.
	Landed func(commit string) bool
}

// takeoverBy marks the conversation a takeover set aside.
const takeoverBy = "fleet-takeover"

// Takeover fits the store to this machine: every worktree path is made
// here (none recorded elsewhere is kept); each pulse that did not land
// on the fetched branch is rewound to Proposed, its conversation set
// aside, to run again from that branch; the pulse leases of the dead
// process are dropped. It returns the planned ids rewound.
func (s *Store) Takeover(ctx context.Context, t Takeover) (rewound []string, err error) {
	err = s.atomic(ctx, func(o ops) error {
		wfs, err := o.Workflows(ctx)
		if err != nil {
			return err
		}
		for _, wf := range wfs {
			tree := ""
			if wf.WorktreePath != "" {
				tree = t.WorkflowTree(wf.Name)
			}
			if _, err := o.q.ExecContext(ctx, `UPDATE workflows SET worktree_path=? WHERE id=?`, tree, wf.ID); err != nil {
				return fmt.Errorf("takeover of workflow %s: %w", wf.Name, err)
			}
			pulses, err := o.WorkflowPulses(ctx, wf.ID)
			if err != nil {
				return err
			}
			for _, p := range pulses {
				if p.Status == PulseProposed {
					continue
				}
				if p.Status == PulseSucceeded && p.CheckpointCommit != "" && t.Landed(p.CheckpointCommit) {
					if _, err := o.q.ExecContext(ctx, `UPDATE pulses SET worktree_path=? WHERE id=?`, t.WorkflowTree(wf.Name), p.ID); err != nil {
						return fmt.Errorf("takeover of pulse %s: %w", p.PlannedID, err)
					}
					continue
				}
				if _, err := o.q.ExecContext(ctx, `UPDATE pulses SET status='Proposed', initiating_message_id=0, summary='', checkpoint_commit='',
					pulse_branch='', worktree_path='', diff_files=0, diff_additions=0, diff_deletions=0, is_recovery_checkpoint=0,
					unresolved_issues='null', failure_reason='', rejection_count=0, extension_count=0, failures='null', gate_run='null',
					diff_artifact_id='', started_at=NULL, ended_at=NULL WHERE id=?`, p.ID); err != nil {
					return fmt.Errorf("takeover: rewind pulse %s: %w", p.PlannedID, err)
				}
				if _, err := o.q.ExecContext(ctx, `UPDATE messages SET set_aside_by=? WHERE run_id=? AND pulse_id=? AND set_aside_by=''`,
					takeoverBy, wf.ID, p.ID); err != nil {
					return fmt.Errorf("takeover: set aside the conversation of %s: %w", p.PlannedID, err)
				}
				rewound = append(rewound, p.PlannedID)
			}
		}
		if _, err := o.q.ExecContext(ctx, `DELETE FROM pulse_leases`); err != nil {
			return fmt.Errorf("takeover: pulse leases: %w", err)
		}
		jobs, err := o.Jobs(ctx)
		if err != nil {
			return err
		}
		for _, j := range jobs {
			if _, err := o.q.ExecContext(ctx, `UPDATE jobs SET worktree_path=? WHERE id=?`, t.JobTree(j.ID), j.ID); err != nil {
				return fmt.Errorf("takeover of job %s: %w", j.Name, err)
			}
		}
		return nil
	})
	return rewound, err
}
