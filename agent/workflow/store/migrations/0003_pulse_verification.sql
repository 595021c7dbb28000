-- Completion validation survives a stop, a crash or a restart: a pulse
-- keeps its unresolved tool failures (JSON [{tool, summary, key}]) and the
-- last quality-gate run (JSON verify.GateRun) with it.

ALTER TABLE pulses ADD COLUMN failures TEXT NOT NULL DEFAULT 'null';
ALTER TABLE pulses ADD COLUMN gate_run TEXT NOT NULL DEFAULT 'null';
