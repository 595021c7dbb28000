-- Lookups the engine makes on every step: by workflow, by pulse, by status.

CREATE INDEX scope_cards_workflow ON scope_cards (workflow_id, created_at);
CREATE INDEX research_workflow ON research (workflow_id, created_at);
CREATE INDEX plans_workflow ON plans (workflow_id, created_at);
CREATE INDEX pulses_workflow ON pulses (workflow_id, seq);
CREATE INDEX pulses_status ON pulses (status);
CREATE INDEX preflight_workflow ON preflight_setups (workflow_id, created_at);
CREATE INDEX baselines_workflow ON baselines (workflow_id, recorded_at);
CREATE INDEX review_cards_workflow ON review_cards (workflow_id, created_at);
CREATE INDEX review_comments_review ON review_comments (review_id, created_at);
CREATE INDEX notes_workflow_stage ON notes (workflow_id, stage);
CREATE INDEX messages_workflow_stage ON messages (workflow_id, stage, pulse_id, id);
CREATE INDEX tool_calls_workflow ON tool_calls (workflow_id, pulse_id, id);
CREATE INDEX usage_workflow ON usage (workflow_id, pulse_id);
CREATE INDEX pending_workflow ON pending (workflow_id, status);
