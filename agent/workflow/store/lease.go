package store

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrLeased is returned, wrapped in a *LeaseError, when another holder's
// lease on a pulse has not ended.
var ErrLeased = errors.New("leased")

// ErrLeaseLost is returned when a holder extends or releases a lease that
// is no longer its own (it ended, and someone else may hold the pulse).
var ErrLeaseLost = errors.New("lease lost")

// Lease is who runs a pulse of a parallel workflow, in which lane, until
// when (pulse_leases, migration 0006).
type Lease struct {
	PulseID    string
	WorkflowID string
	Holder     string // "" when released
	Lane       int
	Until      time.Time
	// Conflicts counts the times the pulse's change did not apply on the
	// workflow head.
	Conflicts int
	// Waiting is the pulse's commit while it waits to land ("" otherwise).
	Waiting string
}

// LeaseError says who holds a pulse.
type LeaseError struct {
	Lease Lease
	Err   error
}

func (e *LeaseError) Error() string {
	return fmt.Sprintf("pulse %s is %s by %s until %s", e.Lease.PulseID, e.Err, e.Lease.Holder, e.Lease.Until.Format(time.RFC3339))
}

func (e *LeaseError) Unwrap() error { return e.Err }

// Parallel is how many pulses of the workflow may run at once (1 for a
// workflow made before the setting existed).
func (o ops) Parallel(ctx context.Context, workflowID string) (int, error) {
	var n int
	if err := o.q.QueryRowContext(ctx, `SELECT parallel FROM workflows WHERE id=?`, workflowID).Scan(&n); err != nil {
		return 0, notFound(err, "workflow", workflowID)
	}
	return n, nil
}

// SetParallel records the workflow's parallel setting (at least 1).
func (o ops) SetParallel(ctx context.Context, workflowID string, n int) error {
	if n < 1 {
		return fmt.Errorf("parallel %d is not accepted: use 1 (one pulse at a time) or more", n)
	}
	res, err := o.q.ExecContext(ctx, `UPDATE workflows SET parallel=? WHERE id=?`, n, workflowID)
	if err != nil {
		return fmt.Errorf("set parallel of workflow %s: %w", workflowID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("workflow %s: %w", workflowID, ErrNotFound)
	}
	return nil
}

// AcquireLease leases a pulse to holder for d: when nobody holds it, its
// lease ended, or holder already holds it. Otherwise a *LeaseError
// (ErrLeased) names the holder.
func (o ops) AcquireLease(ctx context.Context, pulseID, workflowID, holder string, lane int, d time.Duration) (Lease, error) {
	if holder == "" || d <= 0 {
		return Lease{}, fmt.Errorf("lease pulse %s: a holder and a positive duration are required", pulseID)
	}
	now := o.now()
	res, err := o.q.ExecContext(ctx, `INSERT INTO pulse_leases (pulse_id, workflow_id, holder, lane, lease_until) VALUES (?,?,?,?,?)
		ON CONFLICT(pulse_id) DO UPDATE SET holder=excluded.holder, lane=excluded.lane, lease_until=excluded.lease_until, waiting=''
		WHERE pulse_leases.holder='' OR pulse_leases.holder=excluded.holder OR pulse_leases.lease_until<=?`,
		pulseID, workflowID, holder, lane, now.Add(d).UnixNano(), now.UnixNano())
	if err != nil {
		return Lease{}, fmt.Errorf("lease pulse %s: %w", pulseID, err)
	}
	l, err := o.Lease(ctx, pulseID)
	if err != nil {
		return Lease{}, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return l, &LeaseError{Lease: l, Err: ErrLeased}
	}
	return l, nil
}

// ExtendLease moves the end of holder's live lease to d from now.
func (o ops) ExtendLease(ctx context.Context, pulseID, holder string, d time.Duration) error {
	now := o.now()
	return o.execLease(ctx, fmt.Sprintf("extend the lease of pulse %s", pulseID), pulseID,
		`UPDATE pulse_leases SET lease_until=? WHERE pulse_id=? AND holder=? AND lease_until>?`, now.Add(d).UnixNano(), pulseID, holder, now.UnixNano())
}

// ReleaseLease gives up holder's lease (a pulse that landed, halted or
// stopped).
func (o ops) ReleaseLease(ctx context.Context, pulseID, holder string) error {
	return o.execLease(ctx, fmt.Sprintf("release the lease of pulse %s", pulseID), pulseID,
		`UPDATE pulse_leases SET holder='', lease_until=0, waiting='' WHERE pulse_id=? AND holder=?`, pulseID, holder)
}

// execLease runs a write to holder's lease of a pulse: its error says what
// was being done, and a lease it did not change is lost (ErrLeaseLost).
func (o ops) execLease(ctx context.Context, what, pulseID, query string, args ...any) error {
	res, err := o.execRes(ctx, what, query, args...)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 1 {
		return nil
	}
	l, err := o.Lease(ctx, pulseID)
	if err != nil {
		return err
	}
	return &LeaseError{Lease: l, Err: ErrLeaseLost}
}

// SetWaiting records, for holder's pulse, the commit it waits to land with.
func (o ops) SetWaiting(ctx context.Context, pulseID, holder, commit string) error {
	return o.execLease(ctx, fmt.Sprintf("record pulse %s waiting to land", pulseID), pulseID,
		`UPDATE pulse_leases SET waiting=? WHERE pulse_id=? AND holder=?`, commit, pulseID, holder)
}

// AddConflict counts one more conflict of the pulse's change; the new
// count.
func (o ops) AddConflict(ctx context.Context, pulseID string) (int, error) {
	var n int
	err := o.q.QueryRowContext(ctx, `UPDATE pulse_leases SET conflicts=conflicts+1 WHERE pulse_id=? RETURNING conflicts`, pulseID).Scan(&n)
	if err != nil {
		return 0, notFound(err, "lease of pulse", pulseID)
	}
	return n, nil
}

const leaseCols = `pulse_id, workflow_id, holder, lane, lease_until, conflicts, waiting`

func scanLease(row interface{ Scan(...any) error }) (Lease, error) {
	var l Lease
	var until int64
	if err := row.Scan(&l.PulseID, &l.WorkflowID, &l.Holder, &l.Lane, &until, &l.Conflicts, &l.Waiting); err != nil {
		return Lease{}, err
	}
	if until > 0 {
		l.Until = time.Unix(0, until).UTC()
	}
	return l, nil
}

// Lease reads a pulse's lease (ErrNotFound: never leased).
func (o ops) Lease(ctx context.Context, pulseID string) (Lease, error) {
	return queryOne(ctx, o, scanLease, "lease of pulse", pulseID, `SELECT `+leaseCols+` FROM pulse_leases WHERE pulse_id=?`, pulseID)
}

// Leases are the leases of a workflow's pulses.
func (o ops) Leases(ctx context.Context, workflowID string) ([]Lease, error) {
	return queryAll(ctx, o, scanLease, "pulse leases", `SELECT `+leaseCols+` FROM pulse_leases WHERE workflow_id=? ORDER BY pulse_id`, workflowID)
}
