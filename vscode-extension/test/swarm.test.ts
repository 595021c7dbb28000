import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MethodSwarms, type SwarmSnapshot } from '../src/lspext.gen';
import { awaitingProposals, checkAgentList, parseAgentList, parseSwarmMessage, renderSwarms, resumableSwarms, SwarmList, swarmPage } from '../src/swarm';

const diff = '--- a/docs/notes.md\n+++ b/docs/notes.md\n@@ -0,0 +1 @@\n+# Notes <b>\n';
const swarm: SwarmSnapshot = {
  id: '0123456789ab', task: 'Document <the> project', status: 'running', round: 2, rounds: 3, phase: 2, stage: 'arbiter', arbiter: 'human',
  allowWrite: true, branch: 'autarch/swarm-0123456789ab', worktree: '/r/.git/autarch/worktrees/swarm-0123456789ab',
  agents: [{ name: 'explorer', role: 'explorer', model: 'gpt-4o' }, { name: 'critic', role: 'critic', envelope: true }],
  context: [{ key: 'explorer.list_code_files', value: { ok: true, data: ['main.go'], agent: 'explorer' }, version: 3 }, { key: 'phase', value: 2, version: 4 }],
  queue: [{ id: 'q1', kind: 'scan_docs', status: 'claimed', holder: 'critic', leaseUntil: '2026-01-01T00:03:00Z' }, { id: 'q2', kind: 'lint', status: 'queued' }],
  proposals: [
    { id: 'p1', agent: 'explorer', round: 2, path: 'docs/notes.md', content: '# Notes <b>\n', diff },
    { id: 'p0', agent: 'critic', round: 1, path: 'main.go', content: 'x', diff, action: 'reject', notes: 'no <thanks>' },
  ],
  rateLimits: [{ agent: 'critic', tool: 'fs_read', round: 2, resetSec: 12 }],
  commits: ['abc'],
  updatedAt: '2026-01-01T00:00:00Z',
};

test('the swarm view shows agents, round and phase, context, queue with holders, proposals with approve/reject and notes, rate-limit hits, escaped', () => {
  const html = renderSwarms([swarm], new Map([[swarm.id, [{ kind: 'decision', swarmId: swarm.id, path: 'main.go', action: 'reject', text: 'no <thanks>' }]]]));
  assert.match(html, /<li class="swarm-item" data-id="0123456789ab" data-status="running" data-stage="arbiter">/);
  assert.match(html, /class="swarm-round wf-meta">Round 2\/3 · phase 2 · awaiting the arbiter · arbiter human · writes allowed/);
  assert.match(html, /<li class="swarm-agent" data-name="critic" data-role="critic">critic <span class="wf-meta">critic · default model · JSON envelope/);
  assert.match(html, /<li class="swarm-ctx" data-key="explorer.list_code_files" data-version="3">/);
  assert.match(html, /<li class="swarm-queue-item" data-id="q1" data-status="claimed"><code>scan_docs<\/code> claimed · held by critic until 2026-01-01T00:03:00Z/);
  assert.match(html, /<li class="swarm-proposal" data-id="p1" data-action="">.*awaits the arbiter.*class="swarm-notes".*class="swarm-approve" data-id="0123456789ab" data-proposal="p1">Approve/s);
  assert.match(html, /<li class="swarm-proposal" data-id="p0" data-action="reject">.*rejected: no &lt;thanks&gt;/s);
  assert.ok(!/data-proposal="p0"/.test(html), 'a decided proposal has no buttons');
  assert.match(html, /<li class="swarm-rate-hit" data-agent="critic" data-tool="fs_read">critic · fs_read · round 2 · reset in 12 s/);
  assert.match(html, /class="swarm-stop secondary" data-id="0123456789ab">Stop/);
  assert.match(html, /class="swarm-log"><li class="">decision main.go reject: no &lt;thanks&gt;/);
  assert.ok(!html.includes('<the>') && !html.includes('<b>') && !html.includes('<thanks>'), 'server text is escaped');
});

test('a model arbiter gets no buttons; a stopped swarm offers Resume; no swarm says how to start one', () => {
  const html = renderSwarms([{ ...swarm, arbiter: 'gpt-4o', status: 'stopped' }], new Map());
  assert.ok(!html.includes('swarm-approve'));
  assert.match(html, /class="swarm-resume" data-id="0123456789ab">Resume/);
  assert.match(renderSwarms([], new Map()), /No swarm yet: "Autarch: Start Swarm"/);
  assert.match(renderSwarms([], new Map(), 'boom <x>'), /class="error">boom &lt;x&gt;/);
});

test('awaiting proposals, resumable swarms', () => {
  assert.deepEqual(awaitingProposals([swarm]).map((w) => w.proposal.id), ['p1']);
  assert.deepEqual(awaitingProposals([{ ...swarm, stage: 'agents' }]), [], 'a proposal awaits the arbiter only at the arbiter stage');
  assert.deepEqual(resumableSwarms([swarm, { ...swarm, id: 'b', status: 'failed' }, { ...swarm, id: 'c', status: 'done' }]).map((s) => s.id), ['b']);
});

test('the webview messages are checked', () => {
  assert.deepEqual(parseSwarmMessage({ type: 'decide', swarmId: 's', proposalId: 'p', action: 'approve', notes: 'ok' }), { type: 'decide', swarmId: 's', proposalId: 'p', action: 'approve', notes: 'ok' });
  assert.deepEqual(parseSwarmMessage({ type: 'decide', swarmId: 's', proposalId: 'p', action: 'reject' }), { type: 'decide', swarmId: 's', proposalId: 'p', action: 'reject', notes: '' });
  for (const bad of [null, 'x', { type: 'decide', swarmId: 's', proposalId: 'p', action: 'maybe' }, { type: 'decide', swarmId: '', proposalId: 'p', action: 'approve' }, { type: 'stop' }, { type: 'command', command: 'workbench.action.terminal.new' }, { type: 'other' }]) {
    assert.equal(parseSwarmMessage(bad), undefined, JSON.stringify(bad));
  }
  assert.deepEqual(parseSwarmMessage({ type: 'command', command: 'autarch.ui.startSwarm' }), { type: 'command', command: 'autarch.ui.startSwarm' });
});

test('the agents box', () => {
  assert.deepEqual(parseAgentList(' explorer=gpt-4o, ,critic '), ['explorer=gpt-4o', 'critic']);
  assert.equal(checkAgentList('explorer=gpt-4o,critic'), undefined);
  assert.match(checkAgentList('a b=x') ?? '', /not an agent name/);
  assert.match(checkAgentList('x,X') ?? '', /named twice/);
});

test('the list refreshes on events and keeps the latest of each swarm', async () => {
  const calls: string[] = [];
  const list = new SwarmList(async <T>(method: string) => {
    calls.push(method);
    return [swarm] as T;
  }, 5);
  let changes = 0;
  list.onChange(() => changes++);
  for (let i = 0; i < 40; i++) list.onEvent({ kind: 'tool_call', swarmId: swarm.id, text: String(i) });
  list.onEvent({ kind: 'x' } as never);
  assert.equal(list.events.get(swarm.id)?.length, 30);
  assert.equal(list.events.get(swarm.id)?.[29].text, '39');
  await new Promise((r) => setTimeout(r, 30));
  assert.deepEqual(calls, [MethodSwarms], 'one debounced refresh');
  assert.equal(list.find('0123')?.id, swarm.id);
  assert.equal(list.find('012'), undefined, 'a prefix of fewer than 4 characters matches nothing');
  assert.ok(changes > 0);
  list.dispose();
});

test("the view's script posts stop, resume, start and a decision with its notes", () => {
  const page = swarmPage('N', '<p></p>');
  const script = /<script nonce="N">([\s\S]*)<\/script>/.exec(page)?.[1] ?? '';
  assert.ok(page.includes("script-src 'nonce-N'"), 'scripts only by nonce');
  const posted: unknown[] = [];
  let onClick: ((ev: unknown) => void) | undefined;
  const doc = { addEventListener: (_: string, fn: (ev: unknown) => void) => (onClick = fn), querySelectorAll: () => [], getElementById: () => ({}) };
  const win = { addEventListener: () => undefined };
  new Function('acquireVsCodeApi', 'document', 'window', script)(() => ({ postMessage: (m: unknown) => posted.push(m) }), doc, win);
  assert.deepEqual(posted, [{ type: 'ready' }]);
  const button = (classes: string[], dataset: Record<string, string>, notes?: string) => {
    const li = { querySelector: () => (notes === undefined ? null : { value: notes }) };
    const b = { dataset, disabled: false, classList: { contains: (c: string) => classes.includes(c) }, closest: (sel: string) => (sel === 'button' ? b : li) };
    return { target: { closest: () => b } };
  };
  onClick?.(button(['swarm-approve'], { id: 's1', proposal: 'p1' }, 'ship it'));
  onClick?.(button(['swarm-reject'], { id: 's1', proposal: 'p2' }, ''));
  onClick?.(button(['swarm-stop'], { id: 's1' }));
  onClick?.(button(['swarm-resume'], { id: 's2' }));
  onClick?.(button([], { command: 'autarch.ui.startSwarm' }));
  assert.deepEqual(posted.slice(1), [
    { type: 'decide', swarmId: 's1', proposalId: 'p1', action: 'approve', notes: 'ship it' },
    { type: 'decide', swarmId: 's1', proposalId: 'p2', action: 'reject', notes: '' },
    { type: 'stop', swarmId: 's1' },
    { type: 'resume', swarmId: 's2' },
    { type: 'command', command: 'autarch.ui.startSwarm' },
  ]);
  for (const m of posted) assert.ok(parseSwarmMessage(m), `the host accepts ${JSON.stringify(m)}`);
});
