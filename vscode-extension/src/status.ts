// Pure rendering of the side panel's HTML from the server status.
import type { ProjectState, ServerStatus } from './lspext.gen';

/** The server's state; 'restricted': not started, the folder is in Restricted Mode (untrusted). */
export type ServerState = 'starting' | 'running' | 'stopped' | 'restricted';

const escapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for HTML content and attribute values. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => escapes[c]);
}

/** The body of the side panel for a server state and (when running) its status. */
export function renderStatus(state: ServerState, status: ServerStatus | undefined, error?: string): string {
  const rows: string[] = [];
  rows.push(`<h2>Autarch</h2>`);
  rows.push(`<p class="state state-${state}" data-testid="server-state">Server: <b>${escapeHtml(state)}</b>${status ? ` (version ${escapeHtml(status.version)}, pid ${status.pid})` : ''}</p>`);
  if (state === 'restricted') {
    rows.push(
      `<div class="help" data-testid="restricted"><p><b>This folder is in Restricted Mode.</b> Autarch's workflows, search and reviews run tools and commands in the folder, so they need a trusted folder; until then the server does not start.</p>` +
        `<p>Trust the folder (the Restricted Mode banner, or <b>Workspaces: Manage Workspace Trust</b>) and Autarch starts. Settings can be changed meanwhile.</p>` +
        `<p><button data-action="command" data-command="workbench.trust.manage">Manage Workspace Trust</button> <button data-action="command" data-command="workbench.action.openSettings2">Open Settings</button></p></div>`,
    );
    return rows.join('\n');
  }
  if (error) rows.push(`<p class="error">${escapeHtml(error)}</p>`);
  if (status) {
    const ws = status.workspace.length ? status.workspace.map((w) => `<li>${escapeHtml(w)}</li>`).join('') : '<li>No folder open</li>';
    rows.push(`<h3>Workspace</h3><ul data-testid="workspace">${ws}</ul>`);
    const m = status.model;
    rows.push(`<h3>Model</h3>`);
    if (m.configured) {
      rows.push(`<p data-testid="model">Configured: <b>${escapeHtml(m.name)}</b> at ${escapeHtml(m.baseUrl || 'the OpenAI API')}${m.hasApiKey ? '' : ' (no API key)'} — from ${escapeHtml(m.source)}.</p>`);
    } else {
      rows.push(`<p data-testid="model">No model configured.</p>`);
      rows.push(
        `<div class="help"><p>To configure the model endpoint (any OpenAI-compatible API: OpenAI, Ollama, vLLM, LM Studio, OpenRouter):</p><ol>` +
          `<li>Set <code>autarch.model.name</code> (e.g. <code>gpt-4o</code>, <code>qwen2.5-coder</code>) in Settings.</li>` +
          `<li>Set <code>autarch.model.baseUrl</code> for anything but OpenAI (e.g. <code>http://localhost:11434/v1</code> for Ollama).</li>` +
          `<li>Run <b>Autarch: Set API Key</b> (kept in VS Code's secret storage, never in settings.json).</li>` +
          `</ol><p>Or set OPENAI_BASE_URL, AUTARCH_MODEL and OPENAI_API_KEY in the environment VS Code starts from.</p></div>`,
      );
    }
    rows.push(`<p class="message" data-testid="status-message">${escapeHtml(status.message)}</p>`);
  }
  rows.push(`<p><button data-action="command" data-command="autarch.showServerStatus">Show Server Status</button> <button data-action="command" data-command="autarch.setApiKey">Set API Key</button> <button data-action="command" data-command="autarch.openLog">Open Log</button></p>`);
  return rows.join('\n');
}

/** The workspace's MCP servers and project rules (autarch/project). */
export function renderProject(p: ProjectState | undefined): string {
  if (!p) return '';
  const rows: string[] = [];
  rows.push(`<h3>MCP servers</h3>`);
  if (!p.mcpServers.length) {
    rows.push(`<p data-testid="mcp-servers">None configured (mcp.servers in .autarch/config.yaml, .mcp.json, or the user's mcp.json).</p>`);
  } else {
    const items = p.mcpServers.map((s) => {
      const tools = s.tools.length ? ` — ${s.tools.map(escapeHtml).join(', ')}` : '';
      const err = s.error ? `<div class="error">${escapeHtml(s.error)}</div>` : '';
      return `<li class="mcp-server" data-name="${escapeHtml(s.name)}" data-state="${escapeHtml(s.state)}"><b>${escapeHtml(s.name)}</b> (${escapeHtml(s.transport || '?')}, ${escapeHtml(s.origin)}): ${escapeHtml(s.state)}${tools}${err}</li>`;
    });
    rows.push(`<ul data-testid="mcp-servers">${items.join('')}</ul>`);
  }
  rows.push(`<h3>Project rules</h3>`);
  if (!p.rules.length) {
    rows.push(`<p data-testid="project-rules">None (AGENTS.md, CLAUDE.md or .cursor/rules/*.mdc give agents project instructions).</p>`);
  } else {
    const items = p.rules.map((r) => `<li class="rule-file" data-path="${escapeHtml(r.path)}"><code>${escapeHtml(r.path)}</code> ${r.size} bytes — ${escapeHtml(r.applies)}</li>`);
    rows.push(`<ul data-testid="project-rules">${items.join('')}</ul>`);
  }
  for (const w of p.warnings) rows.push(`<p class="warning" data-testid="project-warning">${escapeHtml(w)}</p>`);
  return rows.join('\n');
}

/** The status bar item: the server state, the active workflow and its stage, and what waits for the user. */
export function statusBarText(
  state: ServerState,
  wf: { name: string; stage: string; status: string } | undefined,
  pending: number,
): { text: string; tooltip: string } {
  if (state !== 'running') {
    const tooltip = state === 'restricted' ? 'Autarch: Restricted Mode; workflows need a trusted folder (Workspaces: Manage Workspace Trust)' : `Autarch server: ${state}`;
    return { text: state === 'starting' ? '$(loading~spin) Autarch' : state === 'restricted' ? '$(shield) Autarch' : '$(circle-slash) Autarch', tooltip };
  }
  const waiting = pending > 0 ? ` $(bell-dot) ${pending}` : '';
  const waitTip = pending > 0 ? `\n${pending} question${pending === 1 ? '' : 's'} or approval${pending === 1 ? '' : 's'} wait for you` : '';
  if (!wf) return { text: `$(hubot) Autarch${waiting}`, tooltip: `Autarch: no active workflow${waitTip}` };
  const icon = wf.status === 'Active' ? '$(sync~spin)' : '$(debug-pause)';
  return { text: `${icon} ${wf.name} · ${wf.stage}${waiting}`, tooltip: `Autarch workflow ${wf.name}: ${wf.stage} (${wf.status})${waitTip}` };
}
