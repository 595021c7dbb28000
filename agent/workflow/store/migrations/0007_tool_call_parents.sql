-- Sub-agents' tool calls (dispatch_subagent, issue 18) are stored as the
-- child calls of the dispatch call that ran them: parent_call_id is the
-- dispatch call's call_id ('' for an agent's own calls), subagent the
-- sub-agent's type (explore, test, review).

ALTER TABLE tool_calls ADD COLUMN parent_call_id TEXT NOT NULL DEFAULT '';
ALTER TABLE tool_calls ADD COLUMN subagent TEXT NOT NULL DEFAULT '';
