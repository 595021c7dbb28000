-- Placeholder for migration 0010 (the run kernel's tool-call outcome
-- column, on another branch): migrations are numbered without gaps, and
-- 0011 (reverts) follows it. Drop this file when 0010 is merged.
SELECT 1;
