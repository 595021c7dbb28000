-- Pulse artifacts (issue 20, pulsing-phase.md's data model): the diff of a
-- pulse is stored as an artifact when its checkpoint (or recovery
-- checkpoint) is made, and the pulse names it (diffArtifactId). The pulse's
-- initiating message and preflight's progress message have their columns
-- since 0001.

CREATE TABLE artifacts (
    id          TEXT PRIMARY KEY,
    workflow_id TEXT NOT NULL REFERENCES workflows(id) ON DELETE CASCADE,
    pulse_id    TEXT REFERENCES pulses(id) ON DELETE CASCADE,
    kind        TEXT NOT NULL,
    content     TEXT NOT NULL,
    created_at  INTEGER NOT NULL
);

CREATE INDEX artifacts_pulse ON artifacts(pulse_id);

ALTER TABLE pulses ADD COLUMN diff_artifact_id TEXT NOT NULL DEFAULT '';
