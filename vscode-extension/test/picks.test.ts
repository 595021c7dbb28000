import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyMessage, composerHint, composerTarget, diffPairs, gitQuery, hitDetail, hitLabel, labelGitUri, parseGitUri, undoSteps, workflowsFor } from '../src/picks';
import { PendingStore } from '../src/pending';
import type { WorkflowSummary } from '../src/lspext.gen';

test('autarch-git URIs carry the commit and the path', () => {
  assert.equal(gitQuery('abc/def'), 'commit=abc%2Fdef');
  assert.deepEqual(parseGitUri('/pkg/a.go', gitQuery('HEAD~1')), { commit: 'HEAD~1', path: 'pkg/a.go' });
  assert.equal(parseGitUri('/a', 'x=1'), undefined);
});

test('diffPairs takes renames and additions into account', () => {
  const pairs = diffPairs({
    base: 'b1', head: 'h1', title: 'Pulse 1',
    files: [
      { path: 'new.go', status: 'added', additions: 3, deletions: 0 },
      { path: 'b.go', oldPath: 'a.go', status: 'R', additions: 0, deletions: 0 },
      { path: 'c.go', status: 'modified', additions: 1, deletions: 1 },
    ],
  });
  assert.deepEqual(pairs[1].left, { commit: 'b1', path: 'a.go' });
  assert.deepEqual(pairs[1].right, { commit: 'h1', path: 'b.go' });
  assert.equal(pairs[0].title, 'new.go (added) · Pulse 1');
  assert.equal(pairs[1].status, 'renamed');
  assert.equal(pairs[2].status, 'modified');
});

test('search hits read as path:start-end with a one-line snippet', () => {
  const h = { file_path: 'a.go', start_line: 3, end_line: 9, snippet: 'func  A()\n\t{ }', score: 1, adjusted_score: 1 };
  assert.equal(hitLabel(h), 'a.go:3-9');
  assert.equal(hitLabel({ ...h, end_line: 3 }), 'a.go:3');
  assert.equal(hitDetail(h), 'func A() { }');
  assert.equal(hitDetail({ ...h, snippet: 'x'.repeat(200) }, 10), 'xxxxxxxxx…');
});

test('workflowsFor puts the workflows an action fits first', () => {
  const w = (id: string, status: string, t: string) => ({ id, name: id, status, updatedAt: t }) as WorkflowSummary;
  const list = [w('a', 'Active', '1'), w('b', 'Stopped', '2'), w('c', 'Halted', '3'), w('d', 'Completed', '4'), w('e', 'Failed', '5')];
  assert.deepEqual(workflowsFor(list, 'stop').map((x) => x.id), ['a']);
  assert.deepEqual(workflowsFor(list, 'resume').map((x) => x.id), ['e', 'c', 'b'], 'a failed run resumes from its last durable point');
  assert.deepEqual(workflowsFor([w('d', 'Completed', '4')], 'stop').map((x) => x.id), ['d'], 'nothing fits: everything');
  assert.deepEqual(workflowsFor(list, 'any').map((x) => x.id), ['e', 'd', 'c', 'b', 'a']);
});

test('composerTarget answers a lone free-text question, the selected workflow first', () => {
  const s = new PendingStore();
  assert.equal(composerTarget(s.list(), ''), undefined);
  s.addQuestions({ questions: [{ type: 'single_select', prompt: 'x', options: ['a'] }] });
  assert.equal(composerTarget(s.list(), ''), undefined, 'not free text');
  const other = s.addQuestions({ questions: [{ type: 'free_text', prompt: 'Reply' }], workflowId: 'w2' });
  const mine = s.addQuestions({ questions: [{ type: 'free_text', prompt: 'Reply' }], workflowId: 'w1' });
  assert.equal(composerTarget(s.list(), 'w1')?.id, mine.id);
  assert.equal(composerTarget(s.list(), '')?.id, other.id);
  const loose = s.addQuestions({ questions: [{ type: 'free_text', prompt: 'Reply' }] });
  assert.equal(composerTarget(s.list(), '')?.id, loose.id);
  assert.equal(composerTarget(s.list(), 'w3')?.id, loose.id);
});

test('composerHint says where Send goes: never "the discussion" as if it were the selected workflow', () => {
  assert.equal(composerHint({}), 'Send goes to the discussion');
  assert.equal(composerHint({ selected: 'calc-ops' }), 'Send asks the discussion about the code, not calc-ops');
  assert.equal(composerHint({ answer: 'Why?', workflow: 'calc-ops' }), 'Send answers: Why? (calc-ops)');
  assert.equal(composerHint({ answer: 'Why?' }), 'Send answers: Why?');
});

test('an applied workflow says its file count once', () => {
  assert.equal(applyMessage({ applied: true, files: ['a.go', 'b.go'], message: 'fast-forwarded to autarch/x (2 files)' }), 'Autarch: fast-forwarded to autarch/x (2 files)');
  assert.equal(applyMessage({ applied: true, files: ['a.go', 'b.go'], message: 'applied 2 file(s) as an edit you can undo' }), 'Autarch: applied 2 file(s) as an edit you can undo');
  assert.equal(applyMessage({ applied: true, files: ['a.go'], message: '' }), 'Autarch: applied (1 file)');
  assert.equal(applyMessage({ applied: false, files: [], message: '' }), 'Autarch: not applied');
});

test("undoing an applied edit deletes the files it created and restores the others from the workflow's base", () => {
  const diff = {
    base: 'b1', head: 'h1', title: 'w',
    files: [
      { path: 'calc.go', status: 'modified', additions: 3, deletions: 0 },
      { path: 'calc_test.go', status: 'added', additions: 9, deletions: 0 },
      { path: 'old.go', status: 'deleted', additions: 0, deletions: 2 },
      { path: 'new.go', oldPath: 'was.go', status: 'renamed', additions: 0, deletions: 0 },
      { path: 'skipped.go', status: 'modified', additions: 1, deletions: 0 },
    ],
  };
  assert.deepEqual(undoSteps(diff, ['calc.go', 'calc_test.go', 'old.go', 'new.go']), [
    { restore: { commit: 'b1', path: 'calc.go' } },
    { remove: 'calc_test.go' },
    { restore: { commit: 'b1', path: 'old.go' } },
    { remove: 'new.go' },
    { restore: { commit: 'b1', path: 'was.go' } },
  ]);
});

test("a review comment on an unapplied branch opens the branch's copy under a path that names it, never like the user's file", () => {
  const commit = 'abcdef1234567890abcdef1234567890abcdef12';
  const l = labelGitUri('/calc.go', `commit=${commit}`);
  assert.deepEqual(l, { path: '/calc (review abcdef12).go', query: `commit=${commit}&name=calc.go` });
  const nested = labelGitUri('/pkg/a/Makefile', `commit=${commit}`);
  assert.deepEqual(parseGitUri(nested.path, nested.query), { commit, path: 'pkg/a/Makefile' });
  assert.equal(nested.path, '/pkg/a/Makefile (review abcdef12)');
  // The content provider still finds the file at the commit.
  assert.deepEqual(parseGitUri(l.path, l.query), { commit, path: 'calc.go' });
  // Labelled once only; other URIs unchanged.
  assert.deepEqual(labelGitUri(l.path, l.query), l);
  assert.deepEqual(labelGitUri('/calc.go', 'x=1'), { path: '/calc.go', query: 'x=1' });
});
