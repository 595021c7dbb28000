-- Pulse artifacts: initiatingMessageId, diffArtifactId, preflight progressMessage (issue 20, 004-46/48).
SELECT 1;
