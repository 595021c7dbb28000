-- The run kernel (issue 30, agent/run): every durable run (a workflow, a
-- job; a swarm once it keeps its records here) has a row in runs, kept by
-- triggers as workflows and jobs are created and deleted, and one
-- conversation and one tool-call log keyed by run id: the job tables of
-- 0005 (job_messages, job_tool_calls) are folded into messages and
-- tool_calls. A job's rows have stage and pulse_id ''. Ids, times and
-- contents are kept; a job message gets a new id after the workflows'
-- (only their order counts).

CREATE TABLE runs (
    id         TEXT PRIMARY KEY,
    kind       TEXT NOT NULL CHECK (kind IN ('workflow', 'job', 'swarm')),
    created_at INTEGER NOT NULL
);
INSERT INTO runs (id, kind, created_at) SELECT id, 'workflow', created_at FROM workflows;
INSERT INTO runs (id, kind, created_at) SELECT id, 'job', created_at FROM jobs;

CREATE TRIGGER workflows_run_insert AFTER INSERT ON workflows BEGIN
    INSERT INTO runs (id, kind, created_at) VALUES (NEW.id, 'workflow', NEW.created_at);
END;
CREATE TRIGGER workflows_run_delete AFTER DELETE ON workflows BEGIN
    DELETE FROM runs WHERE id = OLD.id;
END;
CREATE TRIGGER jobs_run_insert AFTER INSERT ON jobs BEGIN
    INSERT INTO runs (id, kind, created_at) VALUES (NEW.id, 'job', NEW.created_at);
END;
CREATE TRIGGER jobs_run_delete AFTER DELETE ON jobs BEGIN
    DELETE FROM runs WHERE id = OLD.id;
END;

CREATE TABLE run_messages (
    id          INTEGER PRIMARY KEY,
    run_id      TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    stage       TEXT NOT NULL DEFAULT '',
    pulse_id    TEXT NOT NULL DEFAULT '',
    role        TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant', 'tool')),
    content     TEXT NOT NULL,
    data        TEXT,
    created_at  INTEGER NOT NULL
);
INSERT INTO run_messages (id, run_id, stage, pulse_id, role, content, data, created_at)
    SELECT id, workflow_id, stage, pulse_id, role, content, data, created_at FROM messages ORDER BY id;
INSERT INTO run_messages (run_id, role, content, data, created_at)
    SELECT job_id, role, content, data, created_at FROM job_messages ORDER BY id;
DROP TABLE messages;
DROP TABLE job_messages;
ALTER TABLE run_messages RENAME TO messages;
CREATE INDEX messages_run_stage ON messages (run_id, stage, pulse_id, id);

CREATE TABLE run_tool_calls (
    id             INTEGER PRIMARY KEY,
    run_id         TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    stage          TEXT NOT NULL DEFAULT '',
    pulse_id       TEXT NOT NULL DEFAULT '',
    call_id        TEXT NOT NULL DEFAULT '',
    parent_call_id TEXT NOT NULL DEFAULT '',
    subagent       TEXT NOT NULL DEFAULT '',
    name           TEXT NOT NULL,
    args           TEXT,
    reason         TEXT NOT NULL DEFAULT '',
    result_summary TEXT NOT NULL DEFAULT '',
    failed         INTEGER NOT NULL DEFAULT 0,
    started_at     INTEGER NOT NULL,
    ended_at       INTEGER
);
INSERT INTO run_tool_calls (id, run_id, stage, pulse_id, call_id, parent_call_id, subagent, name, args, reason, result_summary, failed, started_at, ended_at)
    SELECT id, workflow_id, stage, pulse_id, call_id, parent_call_id, subagent, name, args, reason, result_summary, failed, started_at, ended_at
    FROM tool_calls ORDER BY id;
INSERT INTO run_tool_calls (run_id, call_id, name, reason, result_summary, failed, started_at, ended_at)
    SELECT job_id, call_id, name, reason, summary, failed, started_at, ended_at FROM job_tool_calls ORDER BY id;
DROP TABLE tool_calls;
DROP TABLE job_tool_calls;
ALTER TABLE run_tool_calls RENAME TO tool_calls;
CREATE INDEX tool_calls_run ON tool_calls (run_id, pulse_id, id);
CREATE INDEX tool_calls_run_call ON tool_calls (run_id, call_id);
