-- Parallel pulses (issue 22): a workflow's parallel setting (1: pulses run
-- one after another), and each pulse's lease: the process and lane running
-- it and until when (extended while its agent works; a killed process's
-- lease expires and the pulse can be taken again), and how many times its
-- change conflicted with the workflow head.

ALTER TABLE workflows ADD COLUMN parallel INTEGER NOT NULL DEFAULT 1;

CREATE TABLE pulse_leases (
    pulse_id    TEXT PRIMARY KEY REFERENCES pulses(id) ON DELETE CASCADE,
    workflow_id TEXT NOT NULL REFERENCES workflows(id) ON DELETE CASCADE,
    holder      TEXT NOT NULL DEFAULT '',
    lane        INTEGER NOT NULL DEFAULT 0,
    lease_until INTEGER NOT NULL DEFAULT 0,
    conflicts   INTEGER NOT NULL DEFAULT 0,
    -- the pulse's commit while it waits to land (finished early), else ''
    waiting     TEXT NOT NULL DEFAULT ''
);

CREATE INDEX pulse_leases_workflow ON pulse_leases(workflow_id);
