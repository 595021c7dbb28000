import { test } from 'node:test';
import assert from 'node:assert/strict';
import { escapeHtml, renderProject, renderStatus } from '../src/status';
import type { ServerStatus } from '../src/lspext.gen';

const status = (configured: boolean): ServerStatus => ({
  version: '1.2.3',
  pid: 42,
  workspace: ['/home/u/<proj>'],
  model: { configured, baseUrl: '', name: configured ? 'gpt-4o' : '', hasApiKey: configured, source: 'environment' },
  logFile: '/tmp/log',
  stateDir: '',
  message: 'Autarch 1.2.3 is running',
});

test('escapeHtml escapes markup and quotes', () => {
  assert.equal(escapeHtml(`<a href="x">'&'</a>`), '&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
});

test('renderStatus shows the workspace escaped and the model', () => {
  const html = renderStatus('running', status(true));
  assert.match(html, /Server: <b>running<\/b> \(version 1\.2\.3, pid 42\)/);
  assert.match(html, /&lt;proj&gt;/);
  assert.doesNotMatch(html, /<proj>/);
  assert.match(html, /Configured: <b>gpt-4o<\/b> at the OpenAI API/);
  assert.doesNotMatch(html, /To configure the model endpoint/);
});

test('renderStatus explains configuration when no model is set', () => {
  const html = renderStatus('running', status(false));
  assert.match(html, /No model configured/);
  assert.match(html, /autarch\.model\.name/);
  assert.match(html, /Set API Key/);
});

test('renderStatus without a server shows the state and error', () => {
  const html = renderStatus('stopped', undefined, 'Could not start <bin>');
  assert.match(html, /Server: <b>stopped<\/b>/);
  assert.match(html, /Could not start &lt;bin&gt;/);
});

test('statusBarText shows the active workflow, its stage and what waits', async () => {
  const { statusBarText } = await import('../src/status');
  assert.equal(statusBarText('stopped', undefined, 0).text, '$(circle-slash) Autarch');
  assert.equal(statusBarText('running', undefined, 0).text, '$(hubot) Autarch');
  assert.equal(statusBarText('running', { name: 'fix-login', stage: 'plan', status: 'Active' }, 0).text, '$(sync~spin) fix-login · plan');
  const w = statusBarText('running', { name: 'fix-login', stage: 'plan', status: 'AwaitingUser' }, 2);
  assert.equal(w.text, '$(debug-pause) fix-login · plan $(bell-dot) 2');
  assert.match(w.tooltip, /2 questions or approvals wait for you/);
});

test('renderProject lists MCP servers and project rules, escaped, with warnings', () => {
  const html = renderProject({
    mcpServers: [
      { name: 'everything', transport: 'stdio', origin: 'user', state: 'running', tools: ['mcp_everything_echo'] },
      { name: '<repo>', transport: 'http', origin: 'repository', state: 'untrusted', tools: [], error: 'not started: <untrusted>' },
    ],
    rules: [{ path: 'AGENTS.md', size: 120, applies: 'always' }, { path: '.cursor/rules/sql.mdc', size: 40, applies: 'when a file in play matches *.sql' }],
    warnings: ['project instructions are 40000 bytes, over the 32768-byte cap'],
  });
  assert.match(html, /<li class="mcp-server" data-name="everything" data-state="running"><b>everything<\/b> \(stdio, user\): running — mcp_everything_echo<\/li>/);
  assert.match(html, /data-state="untrusted"><b>&lt;repo&gt;<\/b>/);
  assert.match(html, /not started: &lt;untrusted&gt;/);
  assert.doesNotMatch(html, /<repo>|<untrusted>/);
  assert.match(html, /<code>AGENTS\.md<\/code> 120 bytes — always/);
  assert.match(html, /when a file in play matches \*\.sql/);
  assert.match(html, /data-testid="project-warning">project instructions are 40000 bytes/);
  assert.equal(renderProject(undefined), '');
  assert.match(renderProject({ mcpServers: [], rules: [], warnings: [] }), /None configured[\s\S]*None \(AGENTS\.md/);
});
