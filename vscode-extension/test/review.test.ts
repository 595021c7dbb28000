import { test } from 'node:test';
import assert from 'node:assert/strict';
import { commentBody, commentRange, commentsSignature, decorationRanges, fenced, restoreCandidates, reviewSummaryLine, threadLabel, threadsToShow } from '../src/review';
import type { CommentView } from '../src/lspext.gen';

const line: CommentView = { id: 'c1', type: 'line', filePath: 'pkg/a.go', startLine: 3, endLine: 5, severity: 'High', category: 'bug', description: 'Nil map write.', suggestion: 'm := map[string]int{}', preExisting: false };
const file: CommentView = { id: 'c2', type: 'file', filePath: 'pkg/b.go', severity: 'Low', category: 'style', description: 'Long file.', preExisting: true };
const review: CommentView = { id: 'c3', type: 'review', severity: 'Medium', category: 'architecture', description: 'Split it.', preExisting: false };

test('threadLabel names severity, category and new or pre-existing', () => {
  assert.equal(threadLabel(line), 'High · bug · new');
  assert.equal(threadLabel(file), 'Low · style · pre-existing');
  assert.equal(threadLabel({ ...review, category: '' }), 'Medium · general · new');
});

test('commentRange maps 1-based lines to a 0-based range', () => {
  assert.deepEqual(commentRange(line), { start: 2, end: 4 });
  assert.deepEqual(commentRange({ ...line, endLine: undefined }), { start: 2, end: 2 });
  assert.deepEqual(commentRange({ ...line, endLine: 1 }), { start: 2, end: 2 }, 'end before start');
  assert.deepEqual(commentRange(file), { start: 0, end: 0 });
  assert.equal(commentRange(review), undefined);
});

test('commentBody carries the suggestion as a code block', () => {
  const body = commentBody(line);
  assert.match(body, /^\*\*High\*\* · bug · new\n\nNil map write\./);
  assert.match(body, /```\nm := map\[string\]int\{\}\n```$/);
  assert.equal(fenced('a ``` b'), '````\na ``` b\n````');
  assert.doesNotMatch(commentBody(file), /Suggestion/);
});

test('decorationRanges groups by file and severity; signatures change with content', () => {
  const d = decorationRanges([line, file, review, { ...line, id: 'c4', startLine: 9, endLine: 9 }]);
  assert.deepEqual([...d.keys()], ['pkg/a.go', 'pkg/b.go']);
  assert.deepEqual(d.get('pkg/a.go')?.get('high'), [{ start: 2, end: 4 }, { start: 8, end: 8 }]);
  assert.deepEqual(d.get('pkg/b.go')?.get('low'), [{ start: 0, end: 0 }]);
  assert.equal(commentsSignature([line]), commentsSignature([{ ...line }]));
  assert.notEqual(commentsSignature([line]), commentsSignature([{ ...line, description: 'x' }]));
  assert.equal(reviewSummaryLine({ id: 'r', status: 'Completed', recommendation: 'manual_review', summary: '', base: 'main', head: 'h', comments: [line] }), 'Review against main: manual review — 1 comment.');
});

test('comments anchored to the reviewed commit get no gutter marks on the user files, and re-anchoring changes the signature', () => {
  const atCommit = { ...line, uri: 'autarch-git:/pkg/a.go?commit=abc' };
  const applied = { ...line, uri: 'file:///w/pkg/a.go' };
  assert.equal(decorationRanges([atCommit]).size, 0);
  assert.deepEqual(decorationRanges([applied]).get('pkg/a.go')?.get('high'), [{ start: 2, end: 4 }]);
  assert.notEqual(commentsSignature([atCommit]), commentsSignature([applied]));
});

test('restoreCandidates: the most recent workflows first, abandoned ones left out', () => {
  const w = (id: string, status: string, updatedAt: string) => ({ id, status, updatedAt });
  assert.deepEqual(restoreCandidates([w('a', 'Completed', '2025-01-01'), w('b', 'Abandoned', '2025-01-03'), w('c', 'Halted', '2025-01-02')]), ['c', 'a']);
  assert.deepEqual(restoreCandidates([]), []);
  assert.equal(restoreCandidates(Array.from({ length: 30 }, (_, i) => w(`w${i}`, 'Completed', `2025-01-${String(i + 1).padStart(2, '0')}`))).length, 20);
});

test('a later review without comments clears the earlier review’s threads; no known review keeps them', () => {
  const c = { id: 'c1', type: 'line', filePath: 'calc.go', startLine: 10, endLine: 10, severity: 'High', category: 'bug', description: 'Mul adds' } as CommentView;
  assert.deepEqual(threadsToShow({ comments: [c] }), [c]);
  assert.deepEqual(threadsToShow({ comments: [] }), []);
  assert.deepEqual(threadsToShow({ comments: null as unknown as CommentView[] }), []);
  assert.equal(threadsToShow(null), undefined);
  assert.equal(threadsToShow(undefined), undefined);
});
