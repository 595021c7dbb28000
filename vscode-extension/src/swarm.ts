// Swarms (autarch swarm): several agents on one task in rounds, sharing a
// context and a queue, their writes approved by an arbiter. The list the
// swarm view shows (refreshed on autarch/swarmEvent), its HTML, the
// webview's messages and the page. Pure: requests go through an injected
// function; swarmView.ts connects it to VS Code.
//
// DOM contract (the end-to-end test asserts on it):
//   #swarms > li.swarm-item[data-id][data-status][data-stage]
//     .swarm-task .swarm-status .swarm-round ("Round 1/3 · phase 1 · agents' turns") .swarm-branch
//     .swarm-stop / .swarm-resume (buttons, data-id)
//     .swarm-agents > li.swarm-agent[data-name][data-role]
//     .swarm-context > li.swarm-ctx[data-key][data-version] (key, value as JSON)
//     .swarm-queue > li.swarm-queue-item[data-id][data-status] (holder, lease end)
//     .swarm-proposals > li.swarm-proposal[data-id][data-action] (action "" awaits the arbiter)
//         .swarm-diff (the diff), textarea.swarm-notes, button.swarm-approve, button.swarm-reject
//     .swarm-rate > li.swarm-rate-hit[data-agent][data-tool]
//     .swarm-log > li (the latest events)
import { renderDiff } from './diff';
import { MethodSwarms, type SwarmEvent, type SwarmProposal, type SwarmSnapshot } from './lspext.gen';
import { RefreshedList, type Request } from './refreshList';
import { escapeHtml } from './status';

/** How many events of each swarm the view keeps. */
const maxEvents = 30;

/** The swarms, refreshed (debounced) on every swarm event, with their latest events. */
export class SwarmList extends RefreshedList<SwarmSnapshot> {
  readonly events = new Map<string, SwarmEvent[]>();

  constructor(request: Request, delay = 200) {
    super(request, MethodSwarms, delay);
  }

  get swarms(): SwarmSnapshot[] {
    return this.items;
  }

  /** Takes a swarm event: keeps it and refreshes soon. */
  onEvent(ev: SwarmEvent): void {
    if (!ev || typeof ev !== 'object' || typeof ev.swarmId !== 'string' || typeof ev.kind !== 'string') return;
    const list = this.events.get(ev.swarmId) ?? [];
    list.push(ev);
    this.events.set(ev.swarmId, list.slice(-maxEvents));
    this.changed();
    this.scheduleRefresh();
  }

  /** A swarm by id or id prefix (at least 4 characters). */
  find(ref: string): SwarmSnapshot | undefined {
    return this.swarms.find((s) => s.id === ref) ?? this.swarms.find((s) => ref.length >= 4 && s.id.startsWith(ref));
  }
}

/** The proposals that wait for the human arbiter, with their swarm. */
export function awaitingProposals(swarms: SwarmSnapshot[]): { swarm: SwarmSnapshot; proposal: SwarmProposal }[] {
  return swarms.flatMap((swarm) => (swarm.proposals ?? []).filter((p) => !p.action && swarm.stage === 'arbiter').map((proposal) => ({ swarm, proposal })));
}

/** The swarms that can be resumed (stopped or failed). */
export function resumableSwarms(swarms: SwarmSnapshot[]): SwarmSnapshot[] {
  return swarms.filter((s) => s.status === 'stopped' || s.status === 'failed');
}

/** The swarms running now. */
export function runningSwarms(swarms: SwarmSnapshot[]): SwarmSnapshot[] {
  return swarms.filter((s) => s.status === 'running');
}

/** Parses the agents box of "Start Swarm": "explorer=gpt-4o, critic" → ["explorer=gpt-4o", "critic"]. */
export function parseAgentList(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Checks the agents box: undefined when valid, else what is wrong. */
export function checkAgentList(text: string): string | undefined {
  const seen = new Set<string>();
  for (const item of parseAgentList(text)) {
    const name = item.split('=')[0].trim();
    if (!/^[A-Za-z][A-Za-z0-9_-]{0,31}$/.test(name)) return `"${name}" is not an agent name: a letter, then letters, digits, - or _ (e.g. explorer=gpt-4o)`;
    if (seen.has(name.toLowerCase())) return `${name} is named twice`;
    seen.add(name.toLowerCase());
  }
  return undefined;
}

const e = escapeHtml;
const attr = (s: string | number | boolean | undefined): string => e(String(s ?? ''));

/** The swarm view's body. */
export function renderSwarms(swarms: SwarmSnapshot[], events: Map<string, SwarmEvent[]>, error?: string): string {
  const head = `<div class="section-head"><h2>Swarms <span class="count">${swarms.length}</span></h2><button id="start-swarm" data-command="autarch.ui.startSwarm">Start Swarm</button></div>`;
  if (!swarms.length) return `${head}${error ? `<div class="error">${e(error)}</div>` : ''}<p class="empty">No swarm yet: "Autarch: Start Swarm" runs several agents on one task.</p>`;
  return `${head}${error ? `<div class="error">${e(error)}</div>` : ''}<ul id="swarms">${swarms.map((s) => renderSwarm(s, events.get(s.id) ?? [])).join('\n')}</ul>`;
}

// stageLabel says what a round is doing now.
function stageLabel(stage: string): string {
  switch (stage) {
    case 'agents':
      return "agents' turns";
    case 'arbiter':
      return 'awaiting the arbiter';
    case 'apply':
      return 'applying approved writes';
    default:
      return stage;
  }
}

function renderSwarm(s: SwarmSnapshot, events: SwarmEvent[]): string {
  const round = `Round ${Math.min(s.round, s.rounds)}/${s.rounds} · phase ${s.phase} · ${stageLabel(s.stage)}`;
  const buttons =
    s.status === 'running'
      ? `<button class="swarm-stop secondary" data-id="${attr(s.id)}">Stop</button>`
      : s.status === 'stopped' || s.status === 'failed'
        ? `<button class="swarm-resume" data-id="${attr(s.id)}">Resume</button>`
        : '';
  return (
    `<li class="swarm-item" data-id="${attr(s.id)}" data-status="${attr(s.status)}" data-stage="${attr(s.stage)}">` +
    `<div><strong class="swarm-task">${e(s.task)}</strong> <span class="swarm-status">${e(s.status)}</span> ${buttons}</div>` +
    (s.reason ? `<div class="wf-meta swarm-reason">${e(s.reason)}</div>` : '') +
    `<div class="swarm-round wf-meta">${e(round)} · arbiter ${e(s.arbiter)} · ${s.allowWrite ? 'writes allowed' : s.readOnly ? 'read-only proposal rounds' : 'writes not applied (no --allow-write)'}</div>` +
    `<div class="swarm-branch">Branch: <code>${e(s.branch)}</code>${s.commits.length ? ` · ${s.commits.length} commit${s.commits.length === 1 ? '' : 's'}` : ''}</div>` +
    `<h3>Agents</h3><ul class="swarm-agents">${s.agents.map((a) => `<li class="swarm-agent" data-name="${attr(a.name)}" data-role="${attr(a.role)}">${e(a.name)} <span class="wf-meta">${e(a.role)} · ${e(a.model || 'default model')}${a.envelope ? ' · JSON envelope' : ''}</span></li>`).join('')}</ul>` +
    renderProposals(s) +
    renderContext(s) +
    renderQueue(s) +
    renderRates(s) +
    renderLog(events) +
    `</li>`
  );
}

function renderProposals(s: SwarmSnapshot): string {
  if (!s.proposals.length) return '';
  const items = s.proposals.map((p) => {
    const awaiting = !p.action && s.stage === 'arbiter';
    const state = p.action ? `${p.action === 'approve' ? 'approved' : 'rejected'}${p.applied ? ', applied' : ''}${p.notes ? `: ${e(p.notes)}` : ''}` : awaiting ? 'awaits the arbiter' : 'queued';
    const answer = awaiting && s.arbiter === 'human'
      ? `<textarea class="swarm-notes" rows="2" placeholder="Notes for the agents (optional)"></textarea>` +
        `<div><button class="swarm-approve" data-id="${attr(s.id)}" data-proposal="${attr(p.id)}">Approve</button> <button class="swarm-reject secondary" data-id="${attr(s.id)}" data-proposal="${attr(p.id)}">Reject</button></div>`
      : '';
    return (
      `<li class="swarm-proposal" data-id="${attr(p.id)}" data-action="${attr(p.action ?? '')}">` +
      `<div><code>${e(p.path)}</code> <span class="wf-meta">by ${e(p.agent)}, round ${p.round} — ${state}</span></div>` +
      `<details${awaiting ? ' open' : ''}><summary>Diff</summary><div class="swarm-diff">${renderDiff(p.diff)}</div></details>` +
      answer +
      `</li>`
    );
  });
  return `<h3>Proposals</h3><ul class="swarm-proposals">${items.join('')}</ul>`;
}

function renderContext(s: SwarmSnapshot): string {
  if (!s.context.length) return '';
  const items = s.context.map(
    (c) => `<li class="swarm-ctx" data-key="${attr(c.key)}" data-version="${attr(c.version)}"><code>${e(c.key)}</code> <span class="wf-meta">v${c.version}</span><pre>${e(clip(JSON.stringify(c.value, null, 1) ?? 'null', 600))}</pre></li>`,
  );
  return `<h3>Shared context</h3><ul class="swarm-context">${items.join('')}</ul>`;
}

function renderQueue(s: SwarmSnapshot): string {
  if (!s.queue.length) return '';
  const items = s.queue.map(
    (q) =>
      `<li class="swarm-queue-item" data-id="${attr(q.id)}" data-status="${attr(q.status)}"><code>${e(q.kind)}</code> ${e(q.status)}${q.holder ? ` · held by ${e(q.holder)} until ${e(q.leaseUntil ?? '')}` : ''} <span class="wf-meta">${e(q.id)}</span></li>`,
  );
  return `<h3>Queue</h3><ul class="swarm-queue">${items.join('')}</ul>`;
}

function renderRates(s: SwarmSnapshot): string {
  if (!s.rateLimits.length) return '';
  const items = s.rateLimits.map(
    (r) => `<li class="swarm-rate-hit" data-agent="${attr(r.agent)}" data-tool="${attr(r.tool)}">${e(r.agent)} · ${e(r.tool)} · round ${r.round} · reset in ${r.resetSec} s</li>`,
  );
  return `<h3>Rate-limit hits</h3><ul class="swarm-rate">${items.join('')}</ul>`;
}

function renderLog(events: SwarmEvent[]): string {
  if (!events.length) return '';
  const items = events
    .slice(-10)
    .map((ev) => `<li class="${ev.failed ? 'error' : ''}">${e([ev.kind, ev.agent, ev.tool, ev.path, ev.action].filter(Boolean).join(' '))}${ev.text ? `: ${e(clip(ev.text, 200))}` : ''}</li>`);
  return `<h3>Progress</h3><ul class="swarm-log">${items.join('')}</ul>`;
}

function clip(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n)}…` : s;
}

/** A message from the swarm view. */
export type FromSwarmView =
  | { type: 'ready' }
  | { type: 'command'; command: string }
  | { type: 'stop' | 'resume'; swarmId: string }
  | { type: 'decide'; swarmId: string; proposalId: string; action: 'approve' | 'reject'; notes: string };

const str = (v: unknown): v is string => typeof v === 'string';

/** Checks a message from the swarm view; undefined when it is not one of ours. */
export function parseSwarmMessage(m: unknown): FromSwarmView | undefined {
  if (typeof m !== 'object' || m === null) return undefined;
  const o = m as Record<string, unknown>;
  switch (o.type) {
    case 'ready':
      return { type: 'ready' };
    case 'command':
      return o.command === 'autarch.ui.startSwarm' ? { type: 'command', command: o.command } : undefined;
    case 'stop':
    case 'resume':
      return str(o.swarmId) && o.swarmId ? { type: o.type, swarmId: o.swarmId } : undefined;
    case 'decide':
      if (!str(o.swarmId) || !o.swarmId || !str(o.proposalId) || !o.proposalId || (o.action !== 'approve' && o.action !== 'reject')) return undefined;
      return { type: 'decide', swarmId: o.swarmId, proposalId: o.proposalId, action: o.action, notes: str(o.notes) ? o.notes : '' };
    default:
      return undefined;
  }
}

/** The swarm view's page: the body and a script posting the buttons' messages. */
export function swarmPage(nonce: string, body: string): string {
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}';">
<meta name="viewport" content="width=device-width, initial-scale=1">
<style nonce="${nonce}">${css}</style>
</head><body><div id="swarm-root">${body}</div>
<script nonce="${nonce}">${script}</script>
</body></html>`;
}

const css = `
body{font-family:var(--vscode-font-family);font-size:var(--vscode-font-size);color:var(--vscode-foreground);padding:0 8px 12px}
h2{font-size:1.1em;margin:.8em 0 .4em}h3{font-size:1em;margin:.6em 0 .2em}
ul{list-style:none;padding:0;margin:0}.swarm-item{margin:.4em 0 1em;border-top:1px solid var(--vscode-panel-border);padding-top:.4em}
.error{color:var(--vscode-errorForeground)}.empty,.wf-meta{color:var(--vscode-descriptionForeground);font-size:.9em}
code,pre{font-family:var(--vscode-editor-font-family);font-size:var(--vscode-editor-font-size)}
pre{background:var(--vscode-textCodeBlock-background);padding:4px;overflow-x:auto;white-space:pre-wrap;margin:.2em 0}
.section-head{display:flex;justify-content:space-between;align-items:center}
button{color:var(--vscode-button-foreground);background:var(--vscode-button-background);border:none;padding:3px 9px;margin:2px 0;cursor:pointer;font-family:inherit}
button.secondary{color:var(--vscode-button-secondaryForeground);background:var(--vscode-button-secondaryBackground)}
textarea{width:100%;box-sizing:border-box;font-family:inherit;color:var(--vscode-input-foreground);background:var(--vscode-input-background);border:1px solid var(--vscode-input-border,transparent)}
.diff span{display:block}.diff-add{color:var(--vscode-gitDecoration-addedResourceForeground)}.diff-del{color:var(--vscode-gitDecoration-deletedResourceForeground)}.diff-hunk,.diff-file{color:var(--vscode-descriptionForeground)}
`;

const script = `
const vscode = acquireVsCodeApi();
document.addEventListener('click', (ev) => {
  const b = ev.target.closest('button');
  if (!b) return;
  if (b.dataset.command) return vscode.postMessage({ type: 'command', command: b.dataset.command });
  if (b.classList.contains('swarm-stop')) return vscode.postMessage({ type: 'stop', swarmId: b.dataset.id });
  if (b.classList.contains('swarm-resume')) return vscode.postMessage({ type: 'resume', swarmId: b.dataset.id });
  const action = b.classList.contains('swarm-approve') ? 'approve' : b.classList.contains('swarm-reject') ? 'reject' : '';
  if (action) {
    const li = b.closest('.swarm-proposal');
    const notes = li ? li.querySelector('.swarm-notes') : null;
    b.disabled = true;
    vscode.postMessage({ type: 'decide', swarmId: b.dataset.id, proposalId: b.dataset.proposal, action, notes: notes ? notes.value : '' });
  }
});
window.addEventListener('message', (ev) => {
  const m = ev.data;
  if (m && m.type === 'render') {
    const drafts = {};
    document.querySelectorAll('.swarm-proposal').forEach((li) => { const t = li.querySelector('.swarm-notes'); if (t && t.value) drafts[li.dataset.id] = t.value; });
    document.getElementById('swarm-root').innerHTML = m.body;
    document.querySelectorAll('.swarm-proposal').forEach((li) => { const t = li.querySelector('.swarm-notes'); if (t && drafts[li.dataset.id]) t.value = drafts[li.dataset.id]; });
  }
});
vscode.postMessage({ type: 'ready' });
`;
