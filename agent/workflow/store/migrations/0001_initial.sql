-- The workflow engine's records (spec/pulsing-phase.md, spec/autarch-tools.md).
-- Times are UTC Unix nanoseconds; lists and structured fields are JSON text.

CREATE TABLE workflows (
    id              TEXT PRIMARY KEY,
    name            TEXT NOT NULL UNIQUE,
    task            TEXT NOT NULL DEFAULT '',
    stage           TEXT NOT NULL,
    path            TEXT NOT NULL DEFAULT '',
    base_branch     TEXT NOT NULL DEFAULT '',
    base_commit     TEXT NOT NULL DEFAULT '',
    workflow_branch TEXT NOT NULL DEFAULT '',
    worktree_path   TEXT NOT NULL DEFAULT '',
    status          TEXT NOT NULL,
    status_reason   TEXT NOT NULL DEFAULT '',
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL,
    ended_at        INTEGER
);

CREATE TABLE scope_cards (
    id               TEXT PRIMARY KEY,
    workflow_id      TEXT NOT NULL REFERENCES workflows(id) ON DELETE CASCADE,
    title            TEXT NOT NULL,
    description      TEXT NOT NULL,
    in_scope         TEXT NOT NULL,
    out_of_scope     TEXT NOT NULL,
    constraints      TEXT NOT NULL,
    recommended_path TEXT NOT NULL,
    rationale        TEXT NOT NULL DEFAULT '',
    status           TEXT NOT NULL,
    feedback         TEXT NOT NULL DEFAULT '',
    created_at       INTEGER NOT NULL,
    resolved_at      INTEGER
);

CREATE TABLE research (
    id                 TEXT PRIMARY KEY,
    workflow_id        TEXT NOT NULL REFERENCES workflows(id) ON DELETE CASCADE,
    summary            TEXT NOT NULL,
    key_files          TEXT NOT NULL,
    patterns           TEXT NOT NULL,
    dependencies       TEXT NOT NULL,
    integration_points TEXT NOT NULL,
    challenges         TEXT NOT NULL,
    recommendations    TEXT NOT NULL,
    status             TEXT NOT NULL,
    feedback           TEXT NOT NULL DEFAULT '',
    created_at         INTEGER NOT NULL,
    resolved_at        INTEGER
);

CREATE TABLE plans (
    id               TEXT PRIMARY KEY,
    workflow_id      TEXT NOT NULL REFERENCES workflows(id) ON DELETE CASCADE,
    approach_summary TEXT NOT NULL,
    status           TEXT NOT NULL,
    feedback         TEXT NOT NULL DEFAULT '',
    created_at       INTEGER NOT NULL,
    resolved_at      INTEGER
);

CREATE TABLE pulses (
    id                     TEXT PRIMARY KEY,
    workflow_id            TEXT NOT NULL REFERENCES workflows(id) ON DELETE CASCADE,
    plan_id                TEXT REFERENCES plans(id) ON DELETE CASCADE,
    planned_id             TEXT NOT NULL,
    seq                    INTEGER NOT NULL,
    title                  TEXT NOT NULL DEFAULT '',
    description            TEXT NOT NULL DEFAULT '',
    expected_changes       TEXT NOT NULL,
    depends_on             TEXT NOT NULL,
    estimated_size         TEXT NOT NULL DEFAULT '',
    status                 TEXT NOT NULL,
    initiating_message_id  INTEGER NOT NULL DEFAULT 0,
    summary                TEXT NOT NULL DEFAULT '',
    checkpoint_commit      TEXT NOT NULL DEFAULT '',
    pulse_branch           TEXT NOT NULL DEFAULT '',
    worktree_path          TEXT NOT NULL DEFAULT '',
    diff_files             INTEGER NOT NULL DEFAULT 0,
    diff_additions         INTEGER NOT NULL DEFAULT 0,
    diff_deletions         INTEGER NOT NULL DEFAULT 0,
    is_recovery_checkpoint INTEGER NOT NULL DEFAULT 0,
    unresolved_issues      TEXT NOT NULL DEFAULT 'null',
    failure_reason         TEXT NOT NULL DEFAULT '',
    rejection_count        INTEGER NOT NULL DEFAULT 0,
    extension_count        INTEGER NOT NULL DEFAULT 0,
    created_at             INTEGER NOT NULL,
    started_at             INTEGER,
    ended_at               INTEGER,
    UNIQUE (workflow_id, plan_id, planned_id)
);

CREATE TABLE preflight_setups (
    id                 TEXT PRIMARY KEY,
    workflow_id        TEXT NOT NULL REFERENCES workflows(id) ON DELETE CASCADE,
    channel_id         TEXT NOT NULL DEFAULT '',
    status             TEXT NOT NULL,
    progress_message   TEXT NOT NULL DEFAULT '',
    error_message      TEXT NOT NULL DEFAULT '',
    summary            TEXT NOT NULL DEFAULT '',
    setup_commands     TEXT NOT NULL DEFAULT 'null',
    build_success      INTEGER NOT NULL DEFAULT 0,
    baselines_recorded INTEGER NOT NULL DEFAULT 0,
    created_at         INTEGER NOT NULL,
    completed_at       INTEGER
);

CREATE TABLE baselines (
    id          TEXT PRIMARY KEY,
    workflow_id TEXT NOT NULL REFERENCES workflows(id) ON DELETE CASCADE,
    issue_type  TEXT NOT NULL CHECK (issue_type IN ('Error', 'Warning')),
    source      TEXT NOT NULL CHECK (source IN ('Build', 'Lint', 'Test')),
    pattern     TEXT NOT NULL,
    file_path   TEXT NOT NULL DEFAULT '',
    description TEXT NOT NULL DEFAULT '',
    recorded_at INTEGER NOT NULL
);

CREATE TABLE review_cards (
    id             TEXT PRIMARY KEY,
    workflow_id    TEXT REFERENCES workflows(id) ON DELETE CASCADE,
    base_ref       TEXT NOT NULL DEFAULT '',
    head_ref       TEXT NOT NULL DEFAULT '',
    diff_base      TEXT NOT NULL DEFAULT '',
    diff_head      TEXT NOT NULL DEFAULT '',
    status         TEXT NOT NULL,
    recommendation TEXT NOT NULL DEFAULT '',
    summary        TEXT NOT NULL DEFAULT '',
    created_at     INTEGER NOT NULL,
    completed_at   INTEGER
);

CREATE TABLE review_comments (
    id           TEXT PRIMARY KEY,
    review_id    TEXT NOT NULL REFERENCES review_cards(id) ON DELETE CASCADE,
    type         TEXT NOT NULL CHECK (type IN ('line', 'file', 'review')),
    file_path    TEXT NOT NULL DEFAULT '',
    start_line   INTEGER NOT NULL DEFAULT 0,
    end_line     INTEGER NOT NULL DEFAULT 0,
    severity     TEXT NOT NULL CHECK (severity IN ('High', 'Medium', 'Low')),
    category     TEXT NOT NULL,
    description  TEXT NOT NULL,
    suggestion   TEXT NOT NULL DEFAULT '',
    pre_existing INTEGER NOT NULL DEFAULT 0,
    created_at   INTEGER NOT NULL
);

CREATE TABLE notes (
    id          INTEGER PRIMARY KEY,
    workflow_id TEXT NOT NULL REFERENCES workflows(id) ON DELETE CASCADE,
    stage       TEXT NOT NULL,
    content     TEXT NOT NULL,
    created_at  INTEGER NOT NULL
);

CREATE TABLE messages (
    id          INTEGER PRIMARY KEY,
    workflow_id TEXT NOT NULL REFERENCES workflows(id) ON DELETE CASCADE,
    stage       TEXT NOT NULL,
    pulse_id    TEXT NOT NULL DEFAULT '',
    role        TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant', 'tool')),
    content     TEXT NOT NULL,
    data        TEXT,
    created_at  INTEGER NOT NULL
);

CREATE TABLE tool_calls (
    id             INTEGER PRIMARY KEY,
    workflow_id    TEXT NOT NULL REFERENCES workflows(id) ON DELETE CASCADE,
    stage          TEXT NOT NULL,
    pulse_id       TEXT NOT NULL DEFAULT '',
    call_id        TEXT NOT NULL DEFAULT '',
    name           TEXT NOT NULL,
    args           TEXT,
    reason         TEXT NOT NULL DEFAULT '',
    result_summary TEXT NOT NULL DEFAULT '',
    failed         INTEGER NOT NULL DEFAULT 0,
    started_at     INTEGER NOT NULL,
    ended_at       INTEGER
);

CREATE TABLE usage (
    id                INTEGER PRIMARY KEY,
    workflow_id       TEXT NOT NULL REFERENCES workflows(id) ON DELETE CASCADE,
    stage             TEXT NOT NULL,
    pulse_id          TEXT NOT NULL DEFAULT '',
    model             TEXT NOT NULL DEFAULT '',
    prompt_tokens     INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    cost              REAL NOT NULL DEFAULT 0,
    created_at        INTEGER NOT NULL
);

CREATE TABLE pending (
    id          TEXT PRIMARY KEY,
    workflow_id TEXT NOT NULL REFERENCES workflows(id) ON DELETE CASCADE,
    stage       TEXT NOT NULL,
    kind        TEXT NOT NULL,
    payload     TEXT,
    status      TEXT NOT NULL,
    answer      TEXT,
    created_at  INTEGER NOT NULL,
    resolved_at INTEGER
);
