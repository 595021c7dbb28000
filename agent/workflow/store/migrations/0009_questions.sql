-- One table of questions waiting on a human (the run kernel, issue 30):
-- the workflows' pending items (their cards, approvals, reviews and
-- questions) and the jobs' escalations (0005's job_escalations), keyed by
-- run id. kind is the kernel's kind of question (agent/run QuestionKind),
-- topic the engine's own name of it (scope, plan, tool_approval,
-- escalation, …). An escalation keeps its reason, severity and context
-- (its raw JSON text) in payload and the human's answer (approved,
-- feedback) in answer; delivered: the agent has been given the answer.

CREATE TABLE questions (
    id          TEXT PRIMARY KEY,
    run_id      TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    stage       TEXT NOT NULL DEFAULT '',
    kind        TEXT NOT NULL CHECK (kind IN ('card', 'approval', 'review', 'escalation', 'question')),
    topic       TEXT NOT NULL,
    payload     TEXT,
    status      TEXT NOT NULL CHECK (status IN ('Pending', 'Answered', 'Cancelled')),
    answer      TEXT,
    delivered   INTEGER NOT NULL DEFAULT 0,
    created_at  INTEGER NOT NULL,
    resolved_at INTEGER
);

INSERT INTO questions (id, run_id, stage, kind, topic, payload, status, answer, created_at, resolved_at)
    SELECT id, workflow_id, stage,
        CASE kind WHEN 'scope' THEN 'card' WHEN 'research' THEN 'card' WHEN 'plan' THEN 'card'
            WHEN 'review' THEN 'review' WHEN 'unresolved_issues' THEN 'review'
            WHEN 'questions' THEN 'question' WHEN 'reply' THEN 'question' ELSE 'approval' END,
        kind, payload, status, answer, created_at, resolved_at
    FROM pending ORDER BY created_at, rowid;

INSERT INTO questions (id, run_id, kind, topic, payload, status, answer, delivered, created_at, resolved_at)
    SELECT id, job_id, 'escalation', 'escalation',
        json_object('reason', reason, 'severity', severity, 'context', context),
        status,
        CASE status WHEN 'Answered' THEN json_object('approved', json(CASE approved WHEN 0 THEN 'false' ELSE 'true' END), 'feedback', feedback) END,
        delivered, created_at, resolved_at
    FROM job_escalations ORDER BY created_at, rowid;

DROP TABLE pending;
DROP TABLE job_escalations;
CREATE INDEX questions_run ON questions (run_id, status);
