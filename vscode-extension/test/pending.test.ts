import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PendingStore } from '../src/pending';

test('questions resolve only with answers that fit', async () => {
  const s = new PendingStore(() => 1);
  let changes = 0;
  s.onChange(() => changes++);
  const { id, result } = s.addQuestions({ questions: [{ type: 'single_select', prompt: 'P', options: ['x', 'y'] }], workflowId: 'wf1', title: 'T' });
  assert.equal(s.size, 1);
  assert.equal(s.questions()[0].workflowId, 'wf1');
  assert.match(s.answer(id, [{ values: ['z'] }]) ?? '', /not an option/);
  assert.equal(s.size, 1, 'a wrong answer keeps the item');
  s.setDraft(id, 0, { values: ['y'] });
  assert.deepEqual(s.questions()[0].draft, [{ values: ['y'] }]);
  assert.equal(s.answer(id, [{ values: ['y'] }]), undefined);
  assert.deepEqual(await result, { answers: [{ values: ['y'] }] });
  assert.equal(s.size, 0);
  assert.match(s.answer(id, [{ values: ['y'] }]) ?? '', /already answered/);
  assert.ok(changes >= 3);
});

test('approvals resolve with a decision, never with dismissed', async () => {
  const s = new PendingStore();
  const { id, result } = s.addApproval({ kind: 'plan', title: 'Approve the plan' });
  assert.equal(s.decide(id, { decision: 'dismissed' }), false);
  assert.equal(s.decide(id, { decision: 'always' }), false, 'always only when offered');
  assert.equal(s.decide(id, { decision: 'reject', feedback: '  smaller pulses  ' }), true);
  assert.deepEqual(await result, { decision: 'reject', feedback: 'smaller pulses' });
  assert.equal(s.decide(id, { decision: 'approve' }), false, 'decided once');
  const b = s.addApproval({ kind: 'tool', title: 'Run shell', allowAlways: true });
  assert.equal(s.decide(b.id, { decision: 'always', feedback: ' ' }), true);
  assert.deepEqual(await b.result, { decision: 'always' });
  const c = s.addApproval({ kind: 'plan', title: 'Approve the plan' });
  assert.equal(s.decide(c.id, { decision: 'abort' }), false, 'abort only when offered');
  const d = s.addApproval({ kind: 'tool', title: 'Run shell', allowAlways: true, allowAbort: true });
  assert.equal(s.decide(d.id, { decision: 'abort' }), true);
  assert.deepEqual(await d.result, { decision: 'abort' });
});

test('drop and clear reject the open requests', async () => {
  const s = new PendingStore();
  const a = s.addApproval({ kind: 'plan', title: 'x' });
  const q = s.addQuestions({ questions: [{ type: 'free_text', prompt: 'y' }] });
  s.drop(a.id);
  await assert.rejects(a.result, /cancelled/);
  assert.equal(s.approvals().length, 0);
  s.clear();
  await assert.rejects(q.result, /connection ended/);
  assert.equal(s.size, 0);
});

test("an ended dry run's items are dropped: nothing can answer them any more", async () => {
  const s = new PendingStore();
  const dry = s.addApproval({ kind: 'scope', title: 'Approve the scope', workflowId: 'dry' });
  const other = s.addApproval({ kind: 'plan', title: 'Approve the plan', workflowId: 'wf' });
  assert.equal(s.dropWorkflow('dry', 'the dry run ended'), 1);
  await assert.rejects(dry.result, /the dry run ended/);
  assert.deepEqual(s.list().map((i) => i.id), [other.id]);
  assert.equal(s.dropWorkflow('dry', 'again'), 0);
});
