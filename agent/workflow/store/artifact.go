package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// ArtifactDiff is the kind of a pulse's diff artifact (a unified diff).
const ArtifactDiff = "diff"

// Artifact is content a workflow produced and keeps for later (the
// pulse's diff for review: Pulse.DiffArtifactID).
type Artifact struct {
	ID         string
	WorkflowID string
	PulseID    string // "" when it belongs to no pulse
	Kind       string
	Content    string
	CreatedAt  time.Time
}

// addArtifact stores an artifact and fills its id.
func (o ops) addArtifact(ctx context.Context, a *Artifact) error {
	ensureID(&a.ID, "artifact")
	a.CreatedAt = o.clock()
	return o.exec(ctx, fmt.Sprintf("add %s artifact", a.Kind), `INSERT INTO artifacts (id, workflow_id, pulse_id, kind, content, created_at) VALUES (?,?,?,?,?,?)`,
		a.ID, a.WorkflowID, nullString(a.PulseID), a.Kind, a.Content, stamp(a.CreatedAt))
}

// Artifact reads an artifact; a missing one is ErrNotFound.
func (o ops) Artifact(ctx context.Context, id string) (Artifact, error) {
	var a Artifact
	var pulse sql.NullString
	err := o.q.QueryRowContext(ctx, `SELECT id, workflow_id, pulse_id, kind, content, created_at FROM artifacts WHERE id=?`, id).
		Scan(&a.ID, &a.WorkflowID, &pulse, &a.Kind, &a.Content, stampTo(&a.CreatedAt))
	if err != nil {
		return Artifact{}, notFound(err, "artifact", id)
	}
	a.PulseID = pulse.String
	return a, nil
}
