-- Jobs (issue 19): one agent with the coding-team tools on its own ai/… branch
-- in its own worktree. Times are UTC Unix nanoseconds; lists are JSON text.

CREATE TABLE jobs (
    id                TEXT PRIMARY KEY,
    name              TEXT NOT NULL,
    task              TEXT NOT NULL,
    mode              TEXT NOT NULL CHECK (mode IN ('mechanic', 'genius')),
    status            TEXT NOT NULL,
    status_reason     TEXT NOT NULL DEFAULT '',
    base_ref          TEXT NOT NULL,
    base_commit       TEXT NOT NULL,
    branch            TEXT NOT NULL DEFAULT '',
    worktree_path     TEXT NOT NULL DEFAULT '',
    token_budget      INTEGER NOT NULL DEFAULT 0,
    iteration_limit   INTEGER NOT NULL DEFAULT 0,
    iterations        INTEGER NOT NULL DEFAULT 0,
    prompt_tokens     INTEGER NOT NULL DEFAULT 0,
    completion_tokens INTEGER NOT NULL DEFAULT 0,
    cost              REAL NOT NULL DEFAULT 0,
    created_at        INTEGER NOT NULL,
    updated_at        INTEGER NOT NULL,
    ended_at          INTEGER
);

-- The job agent's conversation, message by message as it happens: data is
-- the message's tool calls or the call id of a tool result.
CREATE TABLE job_messages (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    job_id     TEXT NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
    role       TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'tool')),
    content    TEXT NOT NULL DEFAULT '',
    data       TEXT,
    created_at INTEGER NOT NULL
);
CREATE INDEX job_messages_job ON job_messages (job_id, id);

-- Tool calls as they start and end, by the model's call id: a call that
-- started is never run again after a crash.
CREATE TABLE job_tool_calls (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    job_id     TEXT NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
    call_id    TEXT NOT NULL,
    name       TEXT NOT NULL,
    reason     TEXT NOT NULL DEFAULT '',
    summary    TEXT NOT NULL DEFAULT '',
    failed     INTEGER NOT NULL DEFAULT 0,
    started_at INTEGER NOT NULL,
    ended_at   INTEGER
);
CREATE INDEX job_tool_calls_job ON job_tool_calls (job_id, call_id);

CREATE TABLE job_analyses (
    id         TEXT PRIMARY KEY,
    job_id     TEXT NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
    findings   TEXT NOT NULL,
    files      TEXT NOT NULL DEFAULT '[]',
    complexity TEXT NOT NULL DEFAULT '',
    risks      TEXT NOT NULL DEFAULT '[]',
    created_at INTEGER NOT NULL
);

CREATE TABLE job_plans (
    id               TEXT PRIMARY KEY,
    job_id           TEXT NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
    steps            TEXT NOT NULL,
    estimated_steps  INTEGER NOT NULL DEFAULT 0,
    estimated_tokens INTEGER NOT NULL DEFAULT 0,
    created_at       INTEGER NOT NULL
);

CREATE TABLE job_escalations (
    id          TEXT PRIMARY KEY,
    job_id      TEXT NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
    reason      TEXT NOT NULL,
    severity    TEXT NOT NULL DEFAULT '',
    context     TEXT,
    status      TEXT NOT NULL CHECK (status IN ('Pending', 'Answered')),
    approved    INTEGER NOT NULL DEFAULT 0,
    feedback    TEXT NOT NULL DEFAULT '',
    -- delivered: the agent has been given the answer.
    delivered   INTEGER NOT NULL DEFAULT 0,
    created_at  INTEGER NOT NULL,
    resolved_at INTEGER
);

CREATE TABLE job_commits (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    job_id     TEXT NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
    hash       TEXT NOT NULL,
    message    TEXT NOT NULL,
    branch     TEXT NOT NULL,
    files      INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL
);

-- run_tests and run_lint results, latest last.
CREATE TABLE job_checks (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    job_id     TEXT NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
    kind       TEXT NOT NULL CHECK (kind IN ('test', 'lint')),
    status     TEXT NOT NULL,
    passed     INTEGER NOT NULL DEFAULT 0,
    failed     INTEGER NOT NULL DEFAULT 0,
    summary    TEXT NOT NULL DEFAULT '',
    created_at INTEGER NOT NULL
);
