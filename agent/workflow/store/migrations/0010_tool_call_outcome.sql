-- How each tool call ended, typed (issue 30: no text round trips): the
-- engines record the run kernel's outcome (agent/run Outcome: ok, failed,
-- refused) as a call ends, and readers (autarch status) read it instead of
-- searching the result's text for what a refusal says. failed stays, set
-- for failed and refused calls alike. A call recorded before this column
-- gets its outcome once, here, from what its result said (the markers the
-- tools' refusals carry); a call still running (or interrupted) has none.

ALTER TABLE tool_calls ADD COLUMN outcome TEXT NOT NULL DEFAULT ''
    CHECK (outcome IN ('', 'ok', 'failed', 'refused'));

UPDATE tool_calls SET outcome = CASE
    WHEN failed = 0 THEN 'ok'
    WHEN result_summary LIKE '%Guardrail: %'
      OR result_summary LIKE '%Blocked by hook: %'
      OR result_summary LIKE '%Action cancelled by user%'
      OR result_summary LIKE '%No TTY available for confirmation%'
      OR result_summary LIKE '%allowed_only=True%'
      OR result_summary LIKE '%deletion disabled%'
      OR result_summary LIKE '%"blocked":true%' THEN 'refused'
    ELSE 'failed' END
WHERE ended_at IS NOT NULL;
