import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RestartBudget, serverPath, settingsFrom } from '../src/config';

const getter = (values: Record<string, unknown>) => (k: string) => values[k];

test('settingsFrom maps settings, never a key', () => {
  assert.deepEqual(settingsFrom(getter({})), { model: {} });
  assert.deepEqual(
    settingsFrom(getter({ 'model.baseUrl': ' http://localhost:11434/v1 ', 'model.name': 'qwen', logLevel: 'debug' })),
    { model: { baseUrl: 'http://localhost:11434/v1', name: 'qwen' }, logLevel: 'debug' },
  );
  assert.deepEqual(settingsFrom(getter({ 'model.name': 42 })), { model: {} }, 'non-strings and empty keys are dropped');
});

test('serverPath prefers the setting, else the shipped binary', () => {
  assert.equal(serverPath(getter({ serverPath: '/opt/autarch' }), '/ext', 'linux'), '/opt/autarch');
  assert.equal(serverPath(getter({}), '/ext', 'linux'), '/ext/server/autarch');
  assert.match(serverPath(getter({}), '/ext', 'win32'), /autarch\.exe$/);
});

test('RestartBudget allows 5 restarts in 3 minutes', () => {
  const b = new RestartBudget(5, 180_000);
  for (let i = 0; i < 5; i++) assert.equal(b.allow(i * 1000), true);
  assert.equal(b.allow(6000), false);
  assert.equal(b.allow(6000 + 180_000), true, 'old crashes age out');
});
