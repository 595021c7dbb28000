import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { commandEnabled, notRunningMessage, serverEnablement, serverFree } from '../src/enablement';
import { renderStatus, statusBarText } from '../src/status';

interface Manifest {
  capabilities?: { untrustedWorkspaces?: { supported: string | boolean; description?: string; restrictedConfigurations?: string[] } };
  contributes: { commands: { command: string; enablement?: string }[] };
}

const manifest = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as Manifest;

test('package.json enables every command that needs the server by the client state, and only those', () => {
  for (const c of manifest.contributes.commands) {
    const want = serverFree.has(c.command) ? undefined : serverEnablement;
    assert.equal(c.enablement, want, `${c.command}: enablement`);
  }
  for (const id of serverFree) assert.ok(manifest.contributes.commands.some((c) => c.command === id), `${id} is contributed`);
});

test('commands that need the server are refused while it is down, with what to do next', () => {
  assert.equal(commandEnabled('autarch.ui.newWorkflow', 'running'), true);
  for (const state of ['stopped', 'starting', 'restricted'] as const) {
    assert.equal(commandEnabled('autarch.ui.newWorkflow', state), false, state);
    assert.equal(commandEnabled('autarch.restartServer', state), true, state);
  }
  assert.match(notRunningMessage('stopped'), /Restart Server/);
  assert.match(notRunningMessage('restricted'), /trusted folder.*Manage Workspace Trust/);
});

test('Restricted Mode: the extension declares limited support, and the panel explains that workflows need a trusted folder', () => {
  const u = manifest.capabilities?.untrustedWorkspaces;
  assert.equal(u?.supported, 'limited');
  assert.match(u?.description ?? '', /trusted folder/);
  assert.deepEqual(u?.restrictedConfigurations, ['autarch.serverPath']);
  const html = renderStatus('restricted', undefined);
  assert.match(html, /data-testid="restricted"/);
  assert.match(html, /need a trusted folder/);
  assert.match(html, /data-command="workbench.trust.manage"/);
  assert.match(statusBarText('restricted', undefined, 0).tooltip, /trusted folder/);
});
