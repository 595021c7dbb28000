-- Revert and redo of pulses (issue 32). A revert is recorded before git
-- is touched (status Started: the intent, with the commits to undo and
-- the workflow head they were undone from), so that a process killed half
-- way leaves a revert the next revert, resume or redo finishes: the revert
-- commits already on the branch are found by their trailer, the rest are
-- made, then the workflow's records are rewound in one transaction (Done).
-- Rewound pulses are Proposed again with reverted_by set; their
-- conversation and the stage's notes are set aside (kept, not current);
-- review comments on the reverted lines are resolved by the revert.

CREATE TABLE reverts (
    id             TEXT PRIMARY KEY,
    workflow_id    TEXT NOT NULL REFERENCES workflows(id) ON DELETE CASCADE,
    pulse          TEXT NOT NULL,
    pulses         TEXT NOT NULL,
    commits        TEXT NOT NULL,
    head_before    TEXT NOT NULL,
    revert_commits TEXT NOT NULL DEFAULT 'null',
    snapshot       TEXT NOT NULL DEFAULT 'null',
    prior_stage    TEXT NOT NULL,
    prior_status   TEXT NOT NULL,
    status         TEXT NOT NULL CHECK (status IN ('Started', 'Done')),
    created_at     INTEGER NOT NULL,
    finished_at    INTEGER
);

CREATE INDEX reverts_workflow ON reverts (workflow_id, status);

ALTER TABLE pulses ADD COLUMN reverted_by TEXT NOT NULL DEFAULT '';
ALTER TABLE pulses ADD COLUMN guidance TEXT NOT NULL DEFAULT '';
ALTER TABLE messages ADD COLUMN set_aside_by TEXT NOT NULL DEFAULT '';
ALTER TABLE notes ADD COLUMN set_aside_by TEXT NOT NULL DEFAULT '';
ALTER TABLE review_comments ADD COLUMN resolved_by TEXT NOT NULL DEFAULT '';
