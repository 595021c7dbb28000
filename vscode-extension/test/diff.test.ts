import { test } from 'node:test';
import assert from 'node:assert/strict';
import { approvalButtons, diffSides } from '../src/diff';

test("an edit approval's diff gives the two sides of a diff editor, each line where it is in the file", () => {
  const diff = '--- a/calc.go\n+++ b/calc.go\n@@ -3,2 +3,4 @@\n // Add adds.\n func Add(a, b int) int { return a + b }\n+\n+func Mul(a, b int) int { return a * b }\n';
  const s = diffSides(diff);
  assert.equal(s?.path, 'calc.go');
  assert.deepEqual(s?.before.split('\n'), ['', '', '// Add adds.', 'func Add(a, b int) int { return a + b }']);
  assert.deepEqual(s?.after.split('\n'), ['', '', '// Add adds.', 'func Add(a, b int) int { return a + b }', '', 'func Mul(a, b int) int { return a * b }']);
  const created = diffSides('--- /dev/null\n+++ b/calc_test.go\n@@ -0,0 +1,2 @@\n+package calc\n+// tests\n');
  assert.deepEqual(created, { path: 'calc_test.go', before: '', after: 'package calc\n// tests', created: true });
  const two = diffSides('--- a/x.go\n+++ b/x.go\n@@ -1,1 +1,1 @@\n-a\n+A\n@@ -5,1 +5,1 @@\n-e\n+E\n');
  assert.deepEqual(two?.before.split('\n'), ['a', '', '', '', 'e']);
  assert.deepEqual(two?.after.split('\n'), ['A', '', '', '', 'E']);
  assert.equal(diffSides('not a diff'), undefined);
});

test("an approval's notification keeps its buttons short enough to show whole, the rest behind More…", () => {
  const tool = approvalButtons({ kind: 'tool', title: 'Allow edit_file?', allowAlways: true, allowAbort: true });
  const card = approvalButtons({ kind: 'plan', title: 'Approve the plan' });
  for (const b of [tool, card]) {
    assert.equal(b[0], 'Approve');
    assert.ok(b.join('').length <= 32, `the buttons ${JSON.stringify(b)} are too long for a notification`);
    assert.ok(b.length <= 4, `${b.length} buttons`);
    assert.ok(b.includes('More…') && b.includes('Details'));
  }
  assert.ok(tool.includes('Always allow'));
  assert.ok(!card.includes('Always allow'));
});
