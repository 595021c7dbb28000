import { test } from 'node:test';
import assert from 'node:assert/strict';
import { diagnosticsResult, matchesPaths, normalizePath } from '../src/diagnostics';

const raw = [
  { file: 'pkg/a.go', line: 9, character: 0, severity: 0, message: 'undefined: x', source: 'compiler' },
  { file: 'pkg/sub/b.go', line: 0, character: 4, severity: 1, message: 'unused', source: 'vet' },
  { file: 'pkgx/c.go', line: 2, character: 2, severity: 2, message: 'info' },
  { file: 'main.go', line: 3, character: 1, severity: 3, message: 'hint', source: 'gopls' },
  { file: 'main.go', line: 5, character: 0, severity: 1, message: 'High · bug', source: 'autarch' },
];

test('normalizePath and matchesPaths treat paths as files or directory prefixes', () => {
  assert.equal(normalizePath('./pkg/'), 'pkg');
  assert.equal(normalizePath('pkg\\sub'), 'pkg/sub');
  assert.equal(normalizePath('.'), '');
  assert.equal(matchesPaths('pkg/a.go', ['pkg']), true);
  assert.equal(matchesPaths('pkgx/c.go', ['pkg']), false);
  assert.equal(matchesPaths('pkg/a.go', ['pkg/a.go']), true);
  assert.equal(matchesPaths('anything', []), true);
  assert.equal(matchesPaths('anything', ['.']), true);
});

test('diagnosticsResult filters, maps to 1-based and names severities', () => {
  assert.deepEqual(diagnosticsResult(raw, { paths: ['pkg/'] }), {
    diagnostics: [
      { file: 'pkg/a.go', line: 10, column: 1, severity: 'error', message: 'undefined: x', source: 'compiler' },
      { file: 'pkg/sub/b.go', line: 1, column: 5, severity: 'warning', message: 'unused', source: 'vet' },
    ],
  });
  const all = diagnosticsResult(raw, { paths: [] }).diagnostics;
  assert.deepEqual(all.map((d) => `${d.file}:${d.line}:${d.severity}`), ['main.go:4:info', 'pkg/a.go:10:error', 'pkg/sub/b.go:1:warning', 'pkgx/c.go:3:info']);
  assert.equal(all.some((d) => d.source === 'autarch'), false, "the server's own review diagnostics are left out");
  assert.equal(diagnosticsResult(raw, undefined).diagnostics.length, 4);
});
