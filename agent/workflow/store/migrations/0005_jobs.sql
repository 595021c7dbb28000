-- Jobs (issue 19): one agent with the coding-team tools on its own branch.
SELECT 1;
