import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WorkflowState } from '../src/state';
import type { ActivityView, WorkflowDetail, WorkflowEvent, WorkflowSummary } from '../src/lspext.gen';

const wf = (id: string, status: string, updatedAt: string): WorkflowSummary => ({
  id, name: `n-${id}`, task: 't', stage: 'scoping', status, branch: 'b', pulsesDone: 0, pulses: 0, tokens: 0, cost: 0, updatedAt,
});

function fakeServer() {
  const calls: string[] = [];
  let list = [wf('a', 'Active', '2025-01-02'), wf('b', 'Stopped', '2025-01-03')];
  let activity: ActivityView[] = [{ time: 't0', stage: 'scoping', tool: 'stored_tool', reason: 'r', failed: false }];
  const detail = (id: string): WorkflowDetail => ({
    summary: list.find((w) => w.id === id)!, stages: [], scope: null, research: null, plan: null, pulses: [], pending: [],
    activity, messages: [], review: null,
  });
  const request = async <T>(method: string, params: unknown): Promise<T> => {
    calls.push(method + (params && (params as { workflowId?: string }).workflowId ? ` ${(params as { workflowId: string }).workflowId}` : ''));
    if (method === 'autarch/workflows') return list as T;
    if (method === 'autarch/workflow') return detail((params as { workflowId: string }).workflowId) as T;
    throw new Error('unknown ' + method);
  };
  return { calls, request, setList: (l: WorkflowSummary[]) => (list = l), setActivity: (a: ActivityView[]) => (activity = a) };
}

test('select fetches the list and the detail', async () => {
  const srv = fakeServer();
  const s = new WorkflowState(srv.request, 5);
  await s.select('a');
  assert.deepEqual(srv.calls, ['autarch/workflows', 'autarch/workflow a']);
  assert.equal(s.detail?.summary.id, 'a');
  await s.select('');
  assert.equal(s.detail, undefined);
  assert.deepEqual(srv.calls.slice(2), ['autarch/workflows']);
  s.dispose();
});

test('events feed the activity and the discussion, and refresh once per burst', async () => {
  const srv = fakeServer();
  const s = new WorkflowState(srv.request, 10, () => new Date('2025-01-01T00:00:00Z'));
  await s.select('a');
  srv.calls.length = 0;
  s.onEvent({ kind: 'tool_call', workflowId: 'a', stage: 'scoping', tool: 'grep', reason: 'find it' });
  s.onEvent({ kind: 'tool_result', workflowId: 'a', tool: 'grep', failed: true });
  s.onEvent({ kind: 'message', workflowId: '', stage: 'discussion', text: 'The answer' });
  s.onEvent({ kind: 'tool_call', workflowId: '', tool: 'read_file', reason: 'discussing' });
  assert.deepEqual(s.activity('a').map((x) => `${x.tool}:${x.failed}`), ['stored_tool:false', 'grep:true']);
  assert.deepEqual(s.activity('').map((x) => x.tool), ['read_file']);
  assert.deepEqual(s.discussion, [{ role: 'assistant', stage: 'discussion', text: 'The answer' }]);
  await new Promise((r) => setTimeout(r, 40));
  assert.deepEqual(srv.calls, ['autarch/workflows', 'autarch/workflow a'], 'one debounced refresh');
  assert.deepEqual(s.activity('a').map((x) => x.tool), ['stored_tool'], 'live items before the fetch are now in the detail');
  s.dispose();
});

// The activity after live tool events: each call once, by its id, a sub-agent's calls nested under their
// dispatch call; with stored, after a refresh that fetches the stored activity of the selected workflow too.
const activityCases: { name: string; id: string; live: Omit<WorkflowEvent, 'workflowId'>[]; stored?: ActivityView[]; want: string[] }[] = [
  {
    name: 'a failed result marks the call with its id, not the latest call of the same tool',
    id: 'b',
    live: [
      { kind: 'tool_call', tool: 'grep', reason: 'first', toolCallId: 'c1' },
      { kind: 'tool_call', tool: 'grep', reason: 'second', toolCallId: 'c2' },
      { kind: 'tool_result', tool: 'grep', failed: true, toolCallId: 'c1' },
    ],
    want: ['-:first:true', '-:second:false'],
  },
  {
    name: "a sub-agent's calls are nested under their dispatch call, ids qualified by it",
    id: 'b',
    live: [
      { kind: 'tool_call', tool: 'dispatch_subagent', reason: 'delegate', toolCallId: 'c1' },
      { kind: 'tool_call', tool: 'grep', reason: 'sibling', toolCallId: 'c2' },
      { kind: 'tool_call', tool: 'read_file', reason: 'sub one', toolCallId: 'c1', parentToolCallId: 'c1', subagent: 'explore' },
      { kind: 'tool_call', tool: 'grep', reason: 'sub two', toolCallId: 'c2', parentToolCallId: 'c1', subagent: 'explore' },
      { kind: 'tool_result', tool: 'grep', failed: true, toolCallId: 'c2', parentToolCallId: 'c1' },
    ],
    want: ['-:delegate:false', 'explore:sub one:false', 'explore:sub two:true', '-:sibling:false'],
  },
  {
    name: "a sub-agent's calls (never stored) stay under their stored dispatch call after a refresh",
    id: 'a',
    live: [
      { kind: 'tool_call', tool: 'dispatch_subagent', reason: 'delegate', toolCallId: 'c1' },
      { kind: 'tool_call', tool: 'read_file', reason: 'sub', toolCallId: 'x1', parentToolCallId: 'c1', subagent: 'review' },
      { kind: 'tool_call', tool: 'grep', reason: 'later', toolCallId: 'c2' },
    ],
    stored: [
      { time: 't1', stage: 'pulsing', tool: 'dispatch_subagent', reason: 'delegate', failed: false, callId: 'c1' },
      { time: 't2', stage: 'pulsing', tool: 'grep', reason: 'later', failed: false, callId: 'c2' },
    ],
    want: ['-:delegate:false', 'review:sub:false', '-:later:false'],
  },
  {
    name: 'stored sub-agent calls show once, nested under their dispatch call, with the live ones after a refresh',
    id: 'a',
    live: [
      { kind: 'tool_call', tool: 'dispatch_subagent', reason: 'delegate', toolCallId: 'c1' },
      { kind: 'tool_call', tool: 'read_file', reason: 'sub one', toolCallId: 'c1', parentToolCallId: 'c1', subagent: 'explore' },
      { kind: 'tool_call', tool: 'grep', reason: 'sub two', toolCallId: 'c2', parentToolCallId: 'c1', subagent: 'explore' },
    ],
    // The server stored the dispatch call and the sub-agent's first call (its own id c1 is unique only under its parent).
    stored: [
      { time: 't1', stage: 'pulsing', tool: 'dispatch_subagent', reason: 'delegate', failed: false, callId: 'c1' },
      { time: 't2', stage: 'pulsing', tool: 'read_file', reason: 'sub one', failed: false, callId: 'c1', parentCallId: 'c1', subagent: 'explore' },
    ],
    want: ['-:delegate:false', 'explore:sub one:false', 'explore:sub two:false'],
  },
];
for (const tc of activityCases) {
  test(tc.name, async () => {
    const srv = fakeServer();
    const s = new WorkflowState(srv.request, 1000, () => new Date('2025-01-01T00:00:00Z'));
    if (tc.stored) await s.select(tc.id);
    for (const ev of tc.live) s.onEvent({ workflowId: tc.id, ...ev });
    if (tc.stored) {
      srv.setActivity(tc.stored);
      await s.refresh();
    }
    assert.deepEqual(s.activity(tc.id).map((x) => `${x.subagent ?? '-'}:${x.reason}:${x.failed}`), tc.want);
    s.dispose();
  });
}

test('activeWorkflow prefers the last event, then the newest active one', async () => {
  const srv = fakeServer();
  srv.setList([wf('a', 'Active', '2025-01-02'), wf('c', 'AwaitingUser', '2025-01-05'), wf('b', 'Stopped', '2025-01-09')]);
  const s = new WorkflowState(srv.request, 1000);
  await s.refresh();
  assert.equal(s.activeWorkflow()?.id, 'c');
  s.onEvent({ kind: 'stage', workflowId: 'a', stage: 'research' });
  assert.equal(s.activeWorkflow()?.id, 'a');
  assert.equal(s.summary('a')?.stage, 'research');
  s.onEvent({ kind: 'tool_call', workflowId: 'b', tool: 'x' });
  assert.equal(s.activeWorkflow()?.id, 'c', 'a stopped workflow is not active');
  s.dispose();
});

test('the discussion shows the user message once, even when the server echoes it', () => {
  const s = new WorkflowState(fakeServer().request, 1000);
  s.addUserMessage('What does X do?');
  s.onEvent({ kind: 'message', workflowId: '', stage: 'discussion', status: 'user', text: 'What does X do?' });
  s.onEvent({ kind: 'message', workflowId: '', stage: 'discussion', status: 'assistant', text: 'It does Y.' });
  s.onEvent({ kind: 'message', workflowId: '', stage: 'discussion', status: 'user', text: 'From elsewhere' });
  assert.deepEqual(s.discussion.map((m) => `${m.role}: ${m.text}`), ['user: What does X do?', 'assistant: It does Y.', 'user: From elsewhere']);
  s.dispose();
});

test("a dry run's plan events keep its latest plan (ended or not), the latest dry run first", () => {
  const s = new WorkflowState(fakeServer().request, 1000);
  const entry = { stage: 'pulse pulse-1', tool: 'edit_file', action: 'would edit a.go: replace 1 line with 2', path: 'a.go', change: 'replace 1 line with 2' };
  s.onEvent({ kind: 'dry_run_plan', workflowId: 'd1', dryRun: { entries: [entry], files: [{ path: 'a.go', changes: [entry.change] }] } });
  s.onEvent({ kind: 'dry_run_plan', workflowId: 'd1', dryRun: { entries: [entry, { tool: 'shell', action: 'would run `make` (dev)' }], files: [], ended: true, outcome: 'done' } });
  s.onEvent({ kind: 'dry_run_plan', workflowId: 'd2', dryRun: { entries: [], files: [] } });
  s.onEvent({ kind: 'dry_run_plan', workflowId: 'd3' }); // no plan: ignored
  const plans = s.dryRunPlans();
  assert.deepEqual(plans.map((p) => `${p.workflowId}:${p.plan.entries.length}:${!!p.plan.ended}`), ['d2:0:false', 'd1:2:true']);
  for (const id of ['d3', 'd4', 'd5', 'd6']) s.onEvent({ kind: 'dry_run_plan', workflowId: id, dryRun: { entries: [], files: [] } });
  assert.deepEqual(s.dryRunPlans().map((p) => p.workflowId), ['d6', 'd5', 'd4'], 'only the latest three are kept');
  s.dispose();
});

test('the discussion is kept across a window reload: what the last window kept comes back, with a note', () => {
  const first = new WorkflowState(async () => undefined as never, 5);
  first.addUserMessage('Where is Add?');
  first.onEvent({ kind: 'message', workflowId: '', stage: 'discussion', status: 'user', text: 'Where is Add?' });
  first.onEvent({ kind: 'message', workflowId: '', stage: 'discussion', status: 'assistant', text: 'In calc.go.' });
  const kept = JSON.parse(JSON.stringify(first.keptDiscussion()));
  first.dispose();

  const after = new WorkflowState(async () => undefined as never, 5);
  after.restoreDiscussion(kept);
  assert.deepEqual(after.discussion.map((m) => [m.role, m.text]).slice(0, 2), [['user', 'Where is Add?'], ['assistant', 'In calc.go.']]);
  assert.match(after.discussion[2].text, /reloaded/);
  // Nothing kept, or something that is not a discussion: nothing restored.
  for (const bad of [undefined, 'x', [{ role: 1 }], []]) {
    const s = new WorkflowState(async () => undefined as never, 5);
    s.restoreDiscussion(bad);
    assert.equal(s.discussion.length, 0, JSON.stringify(bad));
    s.dispose();
  }
  after.dispose();
});
