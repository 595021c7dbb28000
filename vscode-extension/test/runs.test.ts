import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fleetConfigured, settingsFrom } from '../src/config';
import type { JobSummary, RunSummary, WorkflowSummary } from '../src/lspext.gen';
import { panelCommands, parseWebviewMessage } from '../src/panelHtml';
import { renderPanel, type PanelModel } from '../src/panelView';
import { fleetActions, promptChoices, renderRuns, when } from '../src/runs';

const now = Date.parse('2026-11-29T12:00:00Z');
const wf: WorkflowSummary = { id: 'wf1', name: 'fix-login', task: 'Fix login', status: 'Active', stage: 'pulsing', branch: 'autarch/fix-login', pulses: 3, pulsesDone: 1, createdAt: '', updatedAt: '2026-11-29T11:58:00Z' } as unknown as WorkflowSummary;
const job = { id: 'job1', name: 'add-sub', task: 'Add Sub', status: 'Stopped', statusReason: 'stopped by the user', mode: 'mechanic', branch: 'ai/job1/add-sub', base: 'main', commits: [], escalations: [], tokens: 0, tokenBudget: 1, iterations: 0, cost: 0, tests: null, lint: null } as unknown as JobSummary;
const runs: RunSummary[] = [
  { kind: 'workflow', id: 'wf1', name: 'fix-login', task: 'Fix login', status: 'Active', branch: 'autarch/fix-login', updatedAt: '2026-11-29T11:58:00Z' },
  { kind: 'job', id: 'job1', name: 'add-sub', task: 'Add Sub', status: 'Stopped', branch: 'ai/job1/add-sub', updatedAt: '2026-11-29T10:00:00Z' },
  { kind: 'swarm', id: 'sw1', name: 'sw1', task: 'Explore', status: 'done', branch: 'autarch/swarm-sw1', updatedAt: '2026-11-28T10:00:00Z' },
  {
    kind: 'workflow', id: '0123456789abcdef', name: 'add-mul', task: 'Add <Mul>', status: 'Running', branch: '', updatedAt: '2026-11-29T11:59:30Z',
    fleet: true, worker: 'worker-1', prompt: 'Approve the scope? [y/N/feedback]', context: ['Scope card: add Mul'],
  },
  { kind: 'job', id: 'fedcba9876543210', name: 'add-div', task: 'Add Div', status: 'Completed', branch: 'ai/fedcba98/add-div', updatedAt: '2026-11-29T09:00:00Z', fleet: true, worker: 'worker-2' },
];

test('the list of runs is one list: every kind with its badge, status, branch and when, and each kind its actions', () => {
  const html = renderRuns({ runs, workflows: [wf], jobs: [job], selected: 'wf1', now });
  assert.equal((html.match(/<ul id="workflows">/g) ?? []).length, 1, 'one list');
  assert.match(html, /<ul id="workflows"><li class="workflow-item discussion" data-action="select" data-id=""/);
  // a workflow: selected by a click, its stage and pulses from its summary
  assert.match(html, /<li class="workflow-item selected" data-action="select" data-id="wf1" data-status="Active" data-stage="pulsing" data-kind="workflow"[^>]*><span class="run-kind" data-kind="workflow"[^>]*>◆ workflow<\/span> <span class="wf-name">fix-login<\/span>/);
  assert.match(html, /pulsing · 1\/3 pulses · <code class="run-branch">autarch\/fix-login<\/code> · <span class="run-when"[^>]*>2 min ago</);
  // a job: its own buttons (Resume asks for guidance through the palette command)
  assert.match(html, /<li class="run-item" data-kind="job" data-id="job1" data-status="Stopped"><span class="run-kind" data-kind="job"[^>]*>▲ job<\/span>.*<button class="run-job-resume secondary" data-action="job" data-op="resume" data-id="job1">Resume…<\/button>/);
  // a swarm: opens the Swarm view
  assert.match(html, /data-kind="swarm" data-id="sw1"[^]*data-command="autarch.swarm.focus">View in Swarm</);
  // a fleet run: its worker, its question (escaped) after the card, an answer box
  assert.match(html, /data-kind="workflow" data-fleet="true" data-id="0123456789abcdef" data-status="Running" data-waiting="true">/);
  assert.match(html, /<span class="run-fleet"[^>]*>fleet · <span class="run-worker">worker-1<\/span><\/span>/);
  assert.match(html, /Add &lt;Mul&gt;/);
  assert.match(html, /<pre class="run-context">Scope card: add Mul<\/pre><div class="run-prompt">Approve the scope\? \[y\/N\/feedback\]<\/div><textarea class="run-answer-text"/);
  assert.match(html, /<button class="run-answer" data-action="fleet" data-op="answer" data-id="0123456789abcdef">Answer<\/button>/);
  // a completed fleet run: Apply (fetches its branch)
  assert.match(html, /data-id="fedcba9876543210"[^]*<button class="run-apply secondary" data-action="fleet" data-op="apply" data-id="fedcba9876543210"/);
  // in the server's order
  const order = [...html.matchAll(/<li [^>]*data-id="([^"]*)"/g)].map((m) => m[1]);
  assert.deepEqual(order, ['', 'wf1', 'job1', 'sw1', '0123456789abcdef', 'fedcba9876543210']);
  for (const [, command] of html.matchAll(/data-command="([^"]+)"/g)) assert.ok(panelCommands.has(command), command);
});

test('before autarch/runs answered, the list shows the workflows; a workflow it has not caught up with comes first', () => {
  const html = renderRuns({ workflows: [wf], selected: '', now });
  assert.match(html, /<li class="workflow-item" data-action="select" data-id="wf1" data-status="Active" data-stage="pulsing" data-kind="workflow"/);
  const fresh = { ...wf, id: 'wf2', name: 'new-one' };
  const order = [...renderRuns({ runs, workflows: [fresh, wf], selected: '', now }).matchAll(/<li [^>]*data-id="([^"]*)"/g)].map((m) => m[1]);
  assert.deepEqual(order, ['', 'wf2', 'wf1', 'job1', 'sw1', '0123456789abcdef', 'fedcba9876543210']);
});

test('Run in Background shows beside New Workflow and Start Job only when a fleet is configured', () => {
  const m = (fleet: boolean): PanelModel => ({ serverState: 'running', workflows: [], selected: '', pending: [], stored: [], activity: [], messages: [], runs: [], fleet });
  const without = renderPanel(m(false)).workflows;
  assert.match(without, /id="new-workflow"[^>]*data-command="autarch.ui.newWorkflow">New Workflow<\/button> <button id="start-job"[^>]*data-command="autarch.ui.startJob">Start Job</);
  assert.doesNotMatch(without, /run-in-background|Run in Background/);
  const with_ = renderPanel(m(true)).workflows;
  assert.match(with_, /<button id="run-in-background" class="secondary" data-action="command" data-command="autarch.ui.runInBackground"[^>]*>Run in Background<\/button>/);

  assert.equal(fleetConfigured((k) => ({ 'fleet.natsUrl': '  ' })[k]), false);
  assert.equal(fleetConfigured((k) => ({ 'fleet.natsUrl': 'nats://fleet:4222' })[k]), true);
  assert.deepEqual(settingsFrom((k) => ({ 'fleet.natsUrl': ' nats://fleet:4222 ', 'fleet.repo': 'git@host:team/app.git' })[k]), {
    model: {},
    fleet: { natsUrl: 'nats://fleet:4222', repo: 'git@host:team/app.git' },
  });
  assert.deepEqual(settingsFrom(() => undefined), { model: {} }, 'no fleet: nothing sent');

  // the palette and the view title show it only with a fleet, too
  const manifest = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as {
    contributes: { commands: { command: string }[]; menus: Record<string, { command: string; when?: string }[]>; configuration: { properties: Record<string, unknown> } };
  };
  for (const id of ['autarch.ui.runInBackground', 'autarch.ui.answerFleetRun', 'autarch.ui.applyFleetRun']) {
    assert.ok(manifest.contributes.commands.some((c) => c.command === id), `${id} is contributed`);
    assert.equal(manifest.contributes.menus.commandPalette.find((c) => c.command === id)?.when, 'autarch.fleetConfigured', `${id} in the palette`);
  }
  assert.match(manifest.contributes.menus['view/title'].find((c) => c.command === 'autarch.ui.runInBackground')?.when ?? '', /autarch\.fleetConfigured/);
  assert.ok(manifest.contributes.configuration.properties['autarch.fleet.natsUrl']);
});

test('a fleet run offers an answer while it waits and Apply once completed with a branch; the panel posts both', () => {
  assert.deepEqual(fleetActions(runs[3]), ['answer']);
  assert.deepEqual(fleetActions(runs[4]), ['apply']);
  assert.deepEqual(fleetActions({ ...runs[4], branch: '' }), []);
  assert.deepEqual(parseWebviewMessage({ type: 'fleet', op: 'answer', runId: 'r1', text: 'y' }), { type: 'fleet', op: 'answer', runId: 'r1', text: 'y' });
  assert.deepEqual(parseWebviewMessage({ type: 'fleet', op: 'apply', runId: 'r1' }), { type: 'fleet', op: 'apply', runId: 'r1', text: undefined });
  assert.equal(parseWebviewMessage({ type: 'fleet', op: 'delete', runId: 'r1' }), undefined);
  assert.equal(parseWebviewMessage({ type: 'fleet', op: 'apply', runId: '' }), undefined);
  assert.equal(when('2026-11-29T11:59:50Z', now), 'just now');
  assert.equal(when('2026-11-27T11:00:00Z', now), '2 d ago');
  assert.equal(when('', now), '');
});

test("a fleet run's approval prompt offers its choices as buttons that answer with their key", () => {
  assert.deepEqual(promptChoices('approve [y], reject [n], always allow [w], abort all [x]?'), [
    { label: 'Approve', answer: 'y' },
    { label: 'Reject', answer: 'n' },
    { label: 'Always allow', answer: 'w' },
    { label: 'Abort all', answer: 'x' },
  ]);
  assert.deepEqual(promptChoices('choose a number (empty to skip):'), []);
  const html = renderRuns({ runs: [{ ...runs[3], prompt: 'approve [y], reject [n]?' }], workflows: [], selected: '', now });
  assert.match(html, /<button class="run-choice secondary" data-action="fleet" data-op="answer" data-id="0123456789abcdef" data-answer="y">Approve<\/button> <button class="run-choice secondary"[^>]*data-answer="n">Reject<\/button>/);
});
