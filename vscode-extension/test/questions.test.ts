import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkAnswer, checkAnswers, decodePending, isSingleFreeText, pickAnswer, remainingRanked, textAnswer } from '../src/questions';
import type { Question } from '../src/lspext.gen';

const single: Question = { type: 'single_select', prompt: 'Which?', options: ['a', 'b', 'c'] };
const multi: Question = { type: 'multi_select', prompt: 'Which ones?', options: ['a', 'b', 'c'] };
const ranked: Question = { type: 'ranked', prompt: 'Order?', options: ['a', 'b', 'c'] };
const free: Question = { type: 'free_text', prompt: 'Why?' };

test('checkAnswer accepts answers that fit and explains the others', () => {
  assert.equal(checkAnswer(single, { values: ['b'] }), undefined);
  assert.match(checkAnswer(single, { values: ['a', 'b'] }) ?? '', /Pick one/);
  assert.match(checkAnswer(single, { values: ['z'] }) ?? '', /not an option/);
  assert.equal(checkAnswer(multi, { values: ['a', 'c'] }), undefined);
  assert.equal(checkAnswer(multi, { values: [] }), undefined, 'none of these is an answer');
  assert.match(checkAnswer(multi, { values: ['a', 'a'] }) ?? '', /twice/);
  assert.equal(checkAnswer(ranked, { values: ['c', 'a', 'b'] }), undefined);
  assert.match(checkAnswer(ranked, { values: ['c', 'a'] }) ?? '', /Rank every/);
  assert.equal(checkAnswer(free, { values: ['because'] }), undefined);
  assert.match(checkAnswer(free, { values: ['  '] }) ?? '', /Write an answer/);
  assert.match(checkAnswer(free, undefined) ?? '', /no answer/);
  assert.match(checkAnswer(free, { values: ['x'], dismissed: true }) ?? '', /dismissed/);
  assert.match(checkAnswers([single, free], [{ values: ['a'] }]) ?? '', /1 answers for 2/);
  assert.equal(checkAnswers([single, free], [{ values: ['a'] }, textAnswer(' ok ')]), undefined);
});

test('pickAnswer keeps the options order, except ranked keeps the pick order', () => {
  assert.deepEqual(pickAnswer(multi, ['c', 'a']), { values: ['a', 'c'] });
  assert.deepEqual(pickAnswer(ranked, ['c', 'a', 'b']), { values: ['c', 'a', 'b'] });
  assert.deepEqual(remainingRanked(ranked, ['c']), ['a', 'b']);
  assert.deepEqual(textAnswer('  hi \n'), { values: ['hi'] });
  assert.equal(isSingleFreeText([free]), true);
  assert.equal(isSingleFreeText([free, single]), false);
});

test('decodePending reads questions, replies and approvals', () => {
  const q = decodePending({ id: 'ask-1', kind: 'questions', stage: 'scoping', payload: JSON.stringify([single]) });
  assert.equal(q.kind, 'questions');
  assert.deepEqual(q.kind === 'questions' && q.questions, [single]);
  const r = decodePending({ id: 'ask-2', kind: 'reply', stage: 'scoping', payload: '{"message":"What next?"}' });
  assert.equal(r.kind === 'questions' && r.message, 'What next?');
  assert.equal(r.kind === 'questions' && r.questions[0].type, 'free_text');
  const a = decodePending({ id: 'ask-3', kind: 'plan', stage: 'plan', payload: '{"kind":"plan","title":"Approve the plan","detail":"# P"}' });
  assert.equal(a.kind === 'approval' && a.approval.title, 'Approve the plan');
  assert.equal(decodePending({ id: 'x', kind: 'plan', stage: 'plan', payload: 'not json' }).kind, 'unknown');
});
