import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { applicableJobs, budgetExhausted, guidancePrompt, resumeRef, liveEscalation, jobActions, JobList, jobModes, jobOpCommands, mergeActivity, renderJobs, resumableJobs, stoppableJobs, waitingEscalations, type FeedItem, type JobOp } from '../src/jobs';
import { MethodJobs, type ActivityView, type JobSummary } from '../src/lspext.gen';
import { parseWebviewMessage } from '../src/panelHtml';
import { PendingStore } from '../src/pending';
import { renderPanel, type PanelModel } from '../src/panelView';

const job: JobSummary = {
  id: '0123456789abcdef', name: 'fix-<add>', task: 'Fix Add <now>', mode: 'mechanic', status: 'Done', statusReason: 'committed 1a2b3c4d on ai/01234567/fix-add',
  base: 'main', branch: 'ai/01234567/fix-add', worktree: '/r/.git/autarch/worktrees/job-01234567',
  commits: [{ hash: '1a2b3c4d5e6f', message: 'fix(calc): make Add add\n\nbody', branch: 'ai/01234567/fix-add', files: 1 }],
  tests: { status: 'pass', passed: 3, failed: 0, summary: '3 passed, 0 failed' },
  lint: { status: 'fail', passed: 0, failed: 2, summary: '2 errors, 0 warnings' },
  escalations: [
    { id: 'esc-1', reason: 'Is <this> intended?', severity: 'high', status: 'Answered', approved: true, feedback: 'yes', createdAt: '2026-01-01T00:00:02Z', resolvedAt: '2026-01-01T00:00:04Z' },
    { id: 'esc-2', reason: 'Second', status: 'Pending', approved: false, createdAt: '2026-01-01T00:00:06Z' },
  ],
  analyses: 1, planSteps: 3, tokens: 12345, tokenBudget: 400000, iterations: 7, cost: 0.0123, updatedAt: '2026-01-01T00:00:00Z',
  activity: [
    { time: '2026-01-01T00:00:01Z', stage: 'job', tool: 'create_branch', reason: 'My <branch>', failed: false, callId: 'call_1' },
    { time: '2026-01-01T00:00:03Z', stage: 'job', tool: 'apply_patch', reason: 'Fix Add', failed: true, callId: 'call_2' },
  ],
};

const at = (status: string, over: Partial<JobSummary> = {}): JobSummary => ({ ...job, status, escalations: [], commits: [], ...over });

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

test('each job state offers its buttons: Stop while running, Resume when stopped or failed, Apply once committed, Answer review while one waits', () => {
  const pending = [{ id: 'e', reason: 'r', status: 'Pending', approved: false }];
  const rows: [string, JobSummary, JobOp[]][] = [
    ['running', at('Running'), ['stop']],
    ['running with a review waiting', at('Running', { escalations: pending }), ['answer', 'stop']],
    ['stopped by the user', at('Stopped', { statusReason: 'stopped by the user' }), ['resume']],
    ['stopped by its budget', at('Stopped', { statusReason: 'token budget reached: 400001 of 400000 tokens (mechanic mode); resume the job to grant it 400000 more' }), ['resume']],
    ['failed', at('Failed', { statusReason: 'model: 500' }), ['resume']],
    ['waiting for a review', at('Waiting', { escalations: pending }), ['answer']],
    ['waiting, the review answered', at('Waiting'), ['resume']],
    ['done with a commit', at('Done', { commits: job.commits }), ['apply']],
    ['done without a commit', at('Done'), []],
  ];
  for (const [name, j, want] of rows) assert.deepEqual(jobActions(j), want, name);
  assert.equal(budgetExhausted(rows[3][1]), true);
  assert.equal(budgetExhausted(at('Stopped', { statusReason: 'iteration limit reached: 60 model calls' })), true);
  assert.equal(budgetExhausted(rows[2][1]), false);
  assert.deepEqual(stoppableJobs(rows.map((r) => r[1])).length, 2);
});

test('the job rows render their buttons with the job id, and what a button does in its title', () => {
  const html = renderJobs([at('Running', { id: 'r"1' }), at('Stopped', { id: 's1', statusReason: 'iteration limit reached: 60 model calls' }), at('Done', { id: 'd1', commits: job.commits }), at('Waiting', { id: 'w1', escalations: job.escalations })]);
  assert.match(html, /<button class="job-stop secondary" data-action="job" data-op="stop" data-id="r&quot;1" title="Stop the job; [^"]*resume it later\.">Stop<\/button>/);
  assert.match(html, /<button class="job-resume" data-action="job" data-op="resume" data-id="s1" title="It used its budget; resuming grants it another mechanic budget\.">Resume with a new budget<\/button>/);
  assert.match(html, /<button class="job-apply" data-action="job" data-op="apply" data-id="d1" title="Bring ai\/01234567\/fix-add into your folder[^"]*">Apply…<\/button>/);
  assert.match(html, /<button class="job-answer" data-action="job" data-op="answer" data-id="w1" [^>]*>Answer review…<\/button>/);
  assert.equal((html.match(/class="job-actions buttons"/g) ?? []).length, 4);
  assert.ok(!renderJobs([at('Done')]).includes('job-actions'), 'no buttons, no empty row');
});

test('each button runs a contributed palette command, and the webview message is checked', () => {
  const manifest = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { contributes: { commands: { command: string }[] } };
  for (const cmd of Object.values(jobOpCommands)) assert.ok(manifest.contributes.commands.some((c) => c.command === cmd), `${cmd} is contributed`);
  assert.deepEqual(parseWebviewMessage({ type: 'job', op: 'resume', jobId: 'j1' }), { type: 'job', op: 'resume', jobId: 'j1' });
  for (const bad of [{ type: 'job', op: 'delete', jobId: 'j1' }, { type: 'job', op: 'toString', jobId: 'j1' }, { type: 'job', op: 'stop', jobId: '' }, { type: 'job', op: 'stop' }, { type: 'job', op: 1, jobId: 'j1' }]) {
    assert.equal(parseWebviewMessage(bad), undefined, JSON.stringify(bad));
  }
});

const tick = () => new Promise((r) => setTimeout(r, 20));

test("the jobs' calls and escalations feed the activity, labelled with the job: stored, then live until a refresh stores them", async () => {
  let served: JobSummary[] = [job];
  let clock = Date.parse('2026-01-01T00:00:10Z');
  const list = new JobList(async <T,>() => served as T, 1, () => new Date(clock++));
  await list.refresh();
  const feed = () => list.activity().map((a) => `${a.job}|${a.tool}|${a.failed ? 'failed' : 'ok'}|${a.reason}`);
  assert.deepEqual(feed(), [
    'fix-<add>|create_branch|ok|My <branch>',
    'fix-<add>|escalation|ok|fix-<add> asks for your review: Is <this> intended?',
    'fix-<add>|apply_patch|failed|Fix Add',
    'fix-<add>|escalation|ok|review answered (approved: yes); the job continues',
    'fix-<add>|escalation|ok|fix-<add> asks for your review: Second — answer it with the job\'s "Answer review…" button',
  ]);
  assert.ok(list.activity().every((a) => a.jobId === job.id && a.stage === 'job'));

  // Live: a call (its failed result marks it), an escalation; the model's call ids repeat across turns.
  let changes = 0;
  list.onChange(() => changes++);
  list.onEvent({ kind: 'tool_call', jobId: job.id, tool: 'run_tests', reason: 'Run the tests', toolCallId: 'call_1' });
  list.onEvent({ kind: 'tool_result', jobId: job.id, tool: 'run_tests', toolCallId: 'call_1', failed: true });
  list.onEvent({ kind: 'escalation', jobId: job.id, status: 'Pending', text: 'Third?' });
  list.onEvent({ kind: 'tool_call', jobId: 'unknown-job-id', tool: 'read_file', reason: 'r' });
  assert.ok(changes >= 4, 'each live entry re-renders at once');
  assert.deepEqual(feed().slice(5), [
    'fix-<add>|run_tests|failed|Run the tests',
    'fix-<add>|escalation|ok|fix-<add> asks for your review: Third? — answer it with the job\'s "Answer review…" button',
    'unknown-|read_file|ok|r',
  ]);

  // The refresh brings them stored: each shows once.
  served = [{ ...job, activity: [...job.activity, { time: '2026-01-01T00:00:10Z', stage: 'job', tool: 'run_tests', reason: 'Run the tests', failed: true, callId: 'call_1' }] }];
  await tick();
  assert.equal(feed().filter((f) => f.includes('run_tests')).length, 1);
  assert.ok(!feed().some((f) => f.includes('Third?')), 'the live escalation went with the refresh (the stored list is the record)');
  list.dispose();
});

test('the feed merges the workflow\'s activity with the jobs\' by time, keeping the workflow\'s order, and labels job entries', () => {
  const wf: ActivityView[] = [
    { time: '2026-01-01T00:00:01Z', stage: 'pulsing', tool: 'dispatch_subagent', reason: 'explore', failed: false },
    { time: '2026-01-01T00:00:09Z', stage: 'pulsing', tool: 'grep', reason: 'sub', failed: false, subagent: 'explore' },
    { time: '2026-01-01T00:00:05Z', stage: 'pulsing', tool: 'read_file', reason: 'after', failed: false },
  ];
  const jobs: FeedItem[] = [
    { time: '2026-01-01T00:00:00Z', stage: 'job', tool: 'create_branch', reason: 'first', failed: false, jobId: 'j1', job: 'fix-<add>' },
    { time: '2026-01-01T00:00:07Z', stage: 'job', tool: 'run_tests', reason: 'later', failed: false, jobId: 'j1', job: 'fix-<add>' },
  ];
  assert.deepEqual(mergeActivity(wf, jobs).map((a) => a.reason), ['first', 'explore', 'later', 'sub', 'after']);
  assert.deepEqual(mergeActivity([], jobs), jobs);
  assert.deepEqual(mergeActivity(wf, []), wf);

  const m: PanelModel = { serverState: 'running', workflows: [], selected: '', pending: [], stored: [], messages: [], activity: mergeActivity([], [...jobs, { ...jobs[0], tool: 'escalation', kind: 'escalation', reason: 'asks <you>' }]) };
  const html = renderPanel(m).activity;
  assert.match(html, /<li class="activity-item job-activity" data-tool="create_branch" data-failed="false" data-stage="job" data-job="j1"><span class="activity-job">job fix-&lt;add&gt;<\/span> <span class="activity-tool">create_branch<\/span>/);
  assert.match(html, /create_branch<\/span> <span class="activity-reason">first<\/span><span class="activity-meta">00:00:00<\/span>/);
  assert.match(html, /<li class="activity-item job-activity escalation" data-tool="escalation"[^>]*>.*asks &lt;you&gt;/);
});

test('Answer review answers the live request when the running job is asking now, else the stored escalation', () => {
  const store = new PendingStore();
  store.addApproval({ kind: 'edit', title: 'Edit calc.go?', detail: '', escalationId: 'esc-2' }).result.catch(() => undefined);
  assert.equal(liveEscalation(store.list(), 'esc-2'), undefined, 'only an escalation approval counts');
  const { id, result } = store.addApproval({ kind: 'escalation', title: 'Job fix-add asks for a human review', detail: '', jobId: job.id, escalationId: 'esc-2' });
  result.catch(() => undefined);
  assert.equal(liveEscalation(store.list(), 'esc-2'), id);
  assert.equal(liveEscalation(store.list(), 'esc-1'), undefined);
  store.clear();
});

test('Resume Job asks for guidance and sends it with the job (blank: none)', () => {
  const stopped: JobSummary = { ...job, status: 'Stopped', statusReason: 'the agent answered 4 times without committing or asking for a review' };
  const p = guidancePrompt(stopped);
  assert.match(p.title, /Resume job/);
  assert.match(p.prompt, /Guidance for the job's agent/);
  assert.match(p.prompt, /It stopped: the agent answered 4 times/);
  assert.deepEqual(resumeRef(stopped, '  Only change calc.go  '), { jobId: stopped.id, name: stopped.name, guidance: 'Only change calc.go' });
  assert.deepEqual(resumeRef(stopped, '   '), { jobId: stopped.id, name: stopped.name });
  assert.equal(parseWebviewMessage({ type: 'job', op: 'resume', jobId: stopped.id })?.type, 'job');
});
