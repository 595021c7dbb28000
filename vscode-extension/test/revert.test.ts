import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseWebviewMessage } from '../src/panelHtml';
import { renderPanel, type PanelModel } from '../src/panelView';
import { canRedo, canRevert, hasReceipt, parseReceiptQuery, pulseItems, pulseStatusLabel, receiptDocument, receiptLocation, revertConfirmation, revertedMessage } from '../src/revertView';
import type { PulseView, RevertPlanView, WorkflowDetail, WorkflowSummary } from '../src/lspext.gen';

const summary: WorkflowSummary = {
  id: 'wf1', name: 'calc', task: 'Add Sub', stage: 'pulsing', status: 'Stopped', branch: 'autarch/calc',
  pulsesDone: 1, pulses: 3, tokens: 0, cost: 0, updatedAt: '2025-01-01T00:00:00Z',
};
const done: PulseView = { id: 'pulse-1', title: 'Add Sub', status: 'Succeeded', commit: 'abcdef1234567', files: 1, additions: 2, deletions: 0, recovery: false, unresolved: [] };
const reverted: PulseView = { id: 'pulse-2', title: 'Test <Sub>', status: 'Proposed', files: 0, additions: 0, deletions: 0, recovery: false, unresolved: [], reverted: true, guidance: 'use a table test' };
const pending: PulseView = { id: 'pulse-3', title: 'Docs', status: 'Proposed', files: 0, additions: 0, deletions: 0, recovery: false, unresolved: [] };
const recovery: PulseView = { id: 'pulse-4', title: 'Half', status: 'Stopped', commit: 'fff', files: 1, additions: 1, deletions: 0, recovery: true, unresolved: [] };
const detail: WorkflowDetail = {
  summary, stages: [{ stage: 'pulsing', state: 'current' }], scope: null, research: null, plan: null,
  pulses: [done, reverted, pending, recovery], pending: [], activity: [], messages: [], review: null,
};

function model(): PanelModel {
  return { serverState: 'running', workflows: [summary], selected: 'wf1', detail, pending: [], stored: [], activity: [], messages: [] };
}

test('only a done pulse offers Revert…, only a reverted pulse offers Redo…, and a reverted pulse shows as reverted', () => {
  assert.deepEqual([done, reverted, pending, recovery].map(canRevert), [true, false, false, false]);
  assert.deepEqual([done, reverted, pending, recovery].map(canRedo), [false, true, false, false]);
  assert.equal(pulseStatusLabel(reverted), 'reverted');
  assert.equal(pulseStatusLabel(done), 'Succeeded');
  const html = renderPanel(model()).workflow;
  const item = (id: string) => html.slice(html.indexOf(`data-id="${id}"`), html.indexOf('</li>', html.indexOf(`data-id="${id}"`)));
  assert.match(item('pulse-1'), /data-op="revert" data-id="wf1" data-pulse="pulse-1"[^>]*>Revert…</);
  assert.match(item('pulse-1'), /data-op="receipt" data-id="wf1" data-pulse="pulse-1"[^>]*>Receipt</);
  assert.doesNotMatch(item('pulse-2'), /data-op="receipt"/);
  assert.doesNotMatch(item('pulse-1'), /data-op="redo"/);
  assert.match(item('pulse-2'), /data-reverted="true"/);
  assert.match(item('pulse-2'), /class="pulse-status status-reverted">reverted</);
  assert.match(item('pulse-2'), /data-op="redo" data-id="wf1" data-pulse="pulse-2"[^>]*>Redo…</);
  assert.match(item('pulse-2'), /redo guidance: use a table test/);
  assert.match(item('pulse-2'), /Test &lt;Sub&gt;/);
  for (const id of ['pulse-3', 'pulse-4']) assert.doesNotMatch(item(id), /data-op="(revert|redo)"/, id);
});

test('the panel’s Revert…/Redo… buttons post messages the extension accepts', () => {
  assert.deepEqual(parseWebviewMessage({ type: 'workflow', op: 'revert', workflowId: 'wf1', pulseId: 'pulse-1' }), { type: 'workflow', op: 'revert', workflowId: 'wf1', pulseId: 'pulse-1' });
  assert.deepEqual(parseWebviewMessage({ type: 'workflow', op: 'redo', workflowId: 'wf1', pulseId: 'pulse-2' }), { type: 'workflow', op: 'redo', workflowId: 'wf1', pulseId: 'pulse-2' });
  assert.deepEqual(parseWebviewMessage({ type: 'workflow', op: 'receipt', workflowId: 'wf1', pulseId: 'pulse-1' }), { type: 'workflow', op: 'receipt', workflowId: 'wf1', pulseId: 'pulse-1' });
  assert.equal(parseWebviewMessage({ type: 'workflow', op: 'rm -rf', workflowId: 'wf1' }), undefined);
});

test('the pulse pickers list the pulses that fit', () => {
  assert.deepEqual(pulseItems(detail, canRevert).map((i) => i.label), ['pulse-1: Add Sub']);
  assert.deepEqual(pulseItems(detail, canRedo).map((i) => [i.label, i.description]), [['pulse-2: Test <Sub>', 'reverted']]);
});

const plan: RevertPlanView = {
  workflowId: 'wf1', workflow: 'calc', branch: 'autarch/calc', pulse: 'pulse-2', files: ['calc.go', 'calc_test.go'],
  pulses: [
    { id: 'pulse-2', title: 'Add Sub', status: 'Succeeded', commit: 'c2', summary: 'feat: Sub', files: ['calc.go'] },
    { id: 'pulse-3', title: 'Test Sub', status: 'Succeeded', commit: 'c3', files: ['calc_test.go'] },
  ],
};

test('the confirmation lists the pulses and files undone; an applied workflow is explained', () => {
  const c = revertConfirmation(plan);
  assert.equal(c.message, 'Revert pulse-2 of calc, and pulse-3 that depends on it?');
  assert.match(c.detail, /autarch\/calc as revert commits/);
  assert.match(c.detail, /• pulse-2 Add Sub — feat: Sub\n• pulse-3 Test Sub\n/);
  assert.match(c.detail, /2 files: calc\.go, calc_test\.go/);
  assert.match(c.detail, /Redo Pulse…/);
  assert.equal(c.button, 'Revert');
  assert.doesNotMatch(c.detail, /already applied/);
  const applied = revertConfirmation({ ...plan, appliedTo: 'main' });
  assert.match(applied.detail, /already applied to main, which keeps these changes: after the revert, Apply Workflow again/);
  assert.equal(applied.button, 'Revert (main keeps its changes)');
});

test('after a revert the message says what happened and offers what to do next (Apply Again when applied)', () => {
  const m = revertedMessage({ plan, commits: ['r3', 'r2'], resolved: 1, message: '' });
  assert.equal(m.text, 'Autarch: reverted pulse-2, pulse-3 of calc (2 revert commits on autarch/calc, 1 review comment resolved). They are pending again: redo one with new guidance, or resume the workflow.');
  assert.deepEqual(m.buttons, ['Redo Pulse…', 'Resume Workflow']);
  const a = revertedMessage({ plan: { ...plan, appliedTo: 'main' }, commits: ['r3', 'r2'], resolved: 0, message: '' });
  assert.match(a.text, /main still has the reverted changes: apply the workflow again/);
  assert.deepEqual(a.buttons, ['Apply Again', 'Redo Pulse…', 'Resume Workflow']);
});

test('Revert Pulse… and Redo Pulse… are in the palette', () => {
  const manifest = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { contributes: { commands: { command: string; title: string }[] } };
  const titles = Object.fromEntries(manifest.contributes.commands.map((c) => [c.command, c.title]));
  assert.equal(titles['autarch.ui.revertPulse'], 'Revert Pulse…');
  assert.equal(titles['autarch.ui.redoPulse'], 'Redo Pulse…');
  assert.equal(titles['autarch.ui.showReceipt'], 'Show Pulse Receipt');
});

test('a done pulse’s receipt opens as its text, how to re-check it, and its JSON', () => {
  assert.deepEqual([done, reverted, pending, recovery].map(hasReceipt), [true, false, false, false]);
  const doc = receiptDocument('calc', 'pulse-1', { found: true, commit: 'abc123', text: 'Receipt of pulse commit abc123\n  tree     t1\n', receipt: '{"tree": "t1"}' });
  assert.match(doc, /^# Completion receipt of pulse-1 \(calc\)\n/);
  assert.match(doc, /```text\nReceipt of pulse commit abc123\n  tree     t1\n```/);
  assert.match(doc, /autarch receipt verify abc123/);
  assert.match(doc, /```json\n\{"tree": "t1"\}\n```/);
});

test('a receipt opens as a read-only markdown document named after its workflow and pulse, whose query names the pulse', () => {
  const loc = receiptLocation('wf 1&2', 'calc/ops', 'pulse-2');
  assert.equal(loc.path, '/calc-ops pulse-2 receipt.md');
  assert.deepEqual(parseReceiptQuery(loc.query), { workflowId: 'wf 1&2', workflow: 'calc/ops', pulse: 'pulse-2' });
  assert.equal(parseReceiptQuery('pulse=pulse-2'), undefined);
  assert.equal(parseReceiptQuery(''), undefined);
});
