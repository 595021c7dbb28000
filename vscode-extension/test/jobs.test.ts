import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applicableJobs, JobList, jobModes, renderJobs, resumableJobs, waitingEscalations } from '../src/jobs';
import { MethodJobs, type JobSummary } from '../src/lspext.gen';

const job: JobSummary = {
  id: '0123456789abcdef', name: 'fix-<add>', task: 'Fix Add <now>', mode: 'mechanic', status: 'Done', statusReason: 'committed 1a2b3c4d on ai/01234567/fix-add',
  base: 'main', branch: 'ai/01234567/fix-add', worktree: '/r/.git/autarch/worktrees/job-01234567',
  commits: [{ hash: '1a2b3c4d5e6f', message: 'fix(calc): make Add add\n\nbody', branch: 'ai/01234567/fix-add', files: 1 }],
  tests: { status: 'pass', passed: 3, failed: 0, summary: '3 passed, 0 failed' },
  lint: { status: 'fail', passed: 0, failed: 2, summary: '2 errors, 0 warnings' },
  escalations: [
    { id: 'esc-1', reason: 'Is <this> intended?', severity: 'high', status: 'Answered', approved: true, feedback: 'yes' },
    { id: 'esc-2', reason: 'Second', status: 'Pending', approved: false },
  ],
  analyses: 1, planSteps: 3, tokens: 12345, tokenBudget: 400000, iterations: 7, cost: 0.0123, updatedAt: '2026-01-01T00:00:00Z',
};

test('the jobs section shows branch, commits, test and lint results, escalations, tokens and cost, escaped', () => {
  const html = renderJobs([job]);
  assert.match(html, /<li class="job-item" data-id="0123456789abcdef" data-status="Done" data-mode="mechanic">/);
  assert.match(html, /class="job-branch">Branch: <code>ai\/01234567\/fix-add<\/code>/);
  assert.match(html, /class="job-commit" data-hash="1a2b3c4d5e6f"><code>1a2b3c4d<\/code> fix\(calc\): make Add add </);
  assert.match(html, /class="job-tests" data-status="pass">Tests: pass \(3 passed, 0 failed\)/);
  assert.match(html, /class="job-lint" data-status="fail">Lint: fail \(2 errors, 0 warnings\)/);
  assert.match(html, /class="job-escalation" data-status="Answered">Review \(high\): Is &lt;this&gt; intended\? — approved: yes/);
  assert.match(html, /class="job-escalation" data-status="Pending">Review \(medium\): Second — waiting for you/);
  assert.match(html, /12,345 \/ 400,000 tokens · 7 model calls · \$0\.0123/);
  assert.ok(!html.includes('<add>') && !html.includes('<now>'), 'server text is escaped');
});

test('no jobs: no section; an error is shown', () => {
  assert.equal(renderJobs([]), '');
  assert.match(renderJobs([], 'the server <failed>'), /class="error">the server &lt;failed&gt;/);
});

test('a job without a branch yet says so; only committed jobs can be applied', () => {
  const fresh: JobSummary = { ...job, id: 'ffff', status: 'Running', branch: '', commits: [], tests: null, lint: null, escalations: [] };
  const html = renderJobs([fresh]);
  assert.match(html, /Branch: <code>\(not yet created\)<\/code>/);
  assert.ok(!html.includes('job-tests'));
  assert.deepEqual(applicableJobs([fresh, job]).map((j) => j.id), [job.id]);
  assert.deepEqual(jobModes.map((m) => m.mode), ['mechanic', 'genius']);
});

test('the list refreshes from autarch/jobs on events, and keeps the last list when a refresh fails', async () => {
  const calls: string[] = [];
  let fail = false;
  const list = new JobList(async <T,>(method: string) => {
    calls.push(method);
    if (fail) throw new Error('server down');
    return [job] as T;
  }, 1);
  let changes = 0;
  list.onChange(() => changes++);
  list.onEvent({ kind: 'status', jobId: job.id });
  list.onEvent({ kind: 'tool_call', jobId: job.id });
  await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(calls, [MethodJobs]);
  assert.equal(list.jobs.length, 1);
  assert.equal(list.find('0123')?.name, 'fix-<add>');
  assert.equal(list.find('fix-<add>')?.id, job.id);
  assert.equal(list.find('012'), undefined, 'a prefix needs 4 characters');
  fail = true;
  await list.refresh();
  assert.equal(list.error, 'server down');
  assert.equal(list.jobs.length, 1);
  assert.ok(changes >= 2);
  list.onEvent(null as never);
  list.dispose();
});

test('waiting escalations and resumable jobs are picked for the palette', () => {
  const waiting: JobSummary = { ...job, id: 'w', status: 'Waiting' };
  assert.deepEqual(waitingEscalations([job, waiting]).map((w) => `${w.job.id}/${w.escalation.id}`), ['0123456789abcdef/esc-2', 'w/esc-2']);
  assert.deepEqual(resumableJobs([job, waiting, { ...job, id: 's', status: 'Stopped' }]).map((j) => j.id), ['w', 's']);
});
