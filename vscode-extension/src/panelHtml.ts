// The side panel's page: a fixed shell (sections filled by render messages,
// a message box that is never re-rendered), its style and its script. Pure
// strings; the script runs in the webview under a nonce-only CSP.
import { jobOpCommands, type JobOp } from './jobs';
import { gitScheme } from './picks';
import { sectionIds, type SectionId } from './panelView';

/** Messages the webview posts to the extension. */
export type FromWebview =
  | { type: 'ready'; selected?: string }
  | { type: 'select'; workflowId: string }
  | { type: 'command'; command: string }
  | { type: 'workflow'; op: WorkflowOp; workflowId: string; pulseId?: string }
  | { type: 'job'; op: JobOp; jobId: string }
  | { type: 'fleet'; op: FleetOp; runId: string; text?: string }
  | { type: 'open'; file: string; start: number; end: number; uri?: string }
  | { type: 'answer'; pendingId: string; workflowId?: string; stored?: boolean; answers: { values: string[] }[] }
  | { type: 'draft'; pendingId: string; index: number; values: string[] }
  | { type: 'decide'; pendingId: string; decision: string; feedback?: string }
  | { type: 'send'; text: string };

/** Commands the panel's buttons (data-action="command") may run. */
export const panelCommands: ReadonlySet<string> = new Set(['autarch.showServerStatus', 'autarch.setApiKey', 'autarch.openLog', 'autarch.restartServer', 'autarch.ui.newWorkflow', 'autarch.ui.startJob', 'autarch.ui.runInBackground', 'autarch.swarm.focus', 'autarch.ui.reviewBranch', 'workbench.trust.manage', 'workbench.action.openSettings2']);

/** What a fleet run's buttons do: answer its question (with the text typed beside it), apply its branch. */
export type FleetOp = 'answer' | 'apply';

/** What the panel's workflow and pulse buttons do. */
export type WorkflowOp = 'stop' | 'resume' | 'apply' | 'diff' | 'revert' | 'redo' | 'receipt';
const ops = new Set<string>(['stop', 'resume', 'apply', 'diff', 'revert', 'redo', 'receipt']);
const str = (v: unknown): v is string => typeof v === 'string';
const strs = (v: unknown): v is string[] => Array.isArray(v) && v.every(str);

/** Checks a message from the webview; undefined when it is not one of ours. */
export function parseWebviewMessage(m: unknown): FromWebview | undefined {
  if (typeof m !== 'object' || m === null) return undefined;
  const o = m as Record<string, unknown>;
  switch (o.type) {
    case 'ready':
      return { type: 'ready', selected: str(o.selected) ? o.selected : undefined };
    case 'select':
      return str(o.workflowId) ? { type: 'select', workflowId: o.workflowId } : undefined;
    case 'command':
      return str(o.command) ? { type: 'command', command: o.command } : undefined;
    case 'workflow':
      return str(o.op) && ops.has(o.op) && str(o.workflowId) && o.workflowId
        ? { type: 'workflow', op: o.op as WorkflowOp, workflowId: o.workflowId, pulseId: str(o.pulseId) && o.pulseId ? o.pulseId : undefined }
        : undefined;
    case 'job':
      return str(o.op) && Object.hasOwn(jobOpCommands, o.op) && str(o.jobId) && o.jobId ? { type: 'job', op: o.op as JobOp, jobId: o.jobId } : undefined;
    case 'fleet':
      return (o.op === 'answer' || o.op === 'apply') && str(o.runId) && o.runId
        ? { type: 'fleet', op: o.op, runId: o.runId, text: str(o.text) ? o.text : undefined }
        : undefined;
    case 'open': {
      const start = Number(o.start);
      const end = Number(o.end);
      if (!str(o.file) || !o.file) return undefined;
      const open = { type: 'open' as const, file: o.file, start: Number.isFinite(start) ? start : 0, end: Number.isFinite(end) ? end : 0 };
      // A review comment on an unapplied branch names the reviewed copy it is anchored to (only those are taken).
      return str(o.uri) && o.uri.startsWith(`${gitScheme}:`) ? { ...open, uri: o.uri } : open;
    }
    case 'answer':
      if (!str(o.pendingId) || !Array.isArray(o.answers) || !o.answers.every((a) => typeof a === 'object' && a !== null && strs((a as { values?: unknown }).values))) return undefined;
      return {
        type: 'answer',
        pendingId: o.pendingId,
        workflowId: str(o.workflowId) ? o.workflowId : undefined,
        stored: o.stored === true,
        answers: (o.answers as { values: string[] }[]).map((a) => ({ values: [...a.values] })),
      };
    case 'draft':
      return str(o.pendingId) && typeof o.index === 'number' && strs(o.values) ? { type: 'draft', pendingId: o.pendingId, index: o.index, values: o.values } : undefined;
    case 'decide':
      return str(o.pendingId) && str(o.decision) ? { type: 'decide', pendingId: o.pendingId, decision: o.decision, feedback: str(o.feedback) ? o.feedback : undefined } : undefined;
    case 'send':
      return str(o.text) ? { type: 'send', text: o.text } : undefined;
    default:
      return undefined;
  }
}

/** The page, with the first render of every section inlined. */
export function panelPage(nonce: string, sections: Record<SectionId, string>, hint: string): string {
  const s = (id: SectionId) => `<div class="section" data-section="${id}">${sections[id]}</div>`;
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}';">
<meta name="viewport" content="width=device-width, initial-scale=1">
<style nonce="${nonce}">${css}</style>
</head><body>
${s('pending')}
${s('dryrun')}
${s('workflows')}
${s('jobs')}
${s('workflow')}
${s('activity')}
${s('conversation')}
<div id="composer">
<textarea id="message-box" rows="3" placeholder="Message… (Ctrl+Enter to send)"></textarea>
<div class="composer-row"><span id="composer-hint">${hint}</span><button id="send">Send</button></div>
</div>
${s('server')}
<script nonce="${nonce}">${script}</script>
</body></html>`;
}

const css = `
body{font-family:var(--vscode-font-family);font-size:var(--vscode-font-size);color:var(--vscode-foreground);padding:0 8px 12px}
h2{font-size:1.1em;margin:.8em 0 .4em}h3{font-size:1em;margin:.8em 0 .3em}
.section:empty{display:none}
.error{color:var(--vscode-errorForeground)}
.empty,.loading,.wf-meta,.activity-meta,.message-meta,.pending-note{color:var(--vscode-descriptionForeground);font-size:.9em}
code,pre{font-family:var(--vscode-editor-font-family);font-size:var(--vscode-editor-font-size)}
pre{background:var(--vscode-textCodeBlock-background);padding:6px;overflow-x:auto;white-space:pre-wrap}
button{color:var(--vscode-button-foreground);background:var(--vscode-button-background);border:none;padding:4px 10px;margin:2px 0;cursor:pointer;font-family:inherit}
button:hover{background:var(--vscode-button-hoverBackground)}
button.secondary,button.pending-option{color:var(--vscode-button-secondaryForeground);background:var(--vscode-button-secondaryBackground)}
button.secondary:hover,button.pending-option:hover{background:var(--vscode-button-secondaryHoverBackground)}
button.pending-option.selected{color:var(--vscode-button-foreground);background:var(--vscode-button-background)}
button.icon{padding:0 4px;background:transparent;color:var(--vscode-textLink-foreground)}
textarea{width:100%;box-sizing:border-box;font-family:inherit;color:var(--vscode-input-foreground);background:var(--vscode-input-background);border:1px solid var(--vscode-input-border,transparent);padding:4px;resize:vertical}
.section-head{display:flex;align-items:center;justify-content:space-between}
#workflows,#jobs{list-style:none;padding:0;margin:0}
.run-kind,.run-fleet{font-size:.8em;opacity:.8;border:1px solid var(--vscode-panel-border,#8884);border-radius:3px;padding:0 3px}
.run-item{padding:3px 4px}.run-context{white-space:pre-wrap;max-height:10em;overflow:auto;font-size:.85em}.run-answer-text{width:100%;box-sizing:border-box}
.job-item{margin:.3em 0 .6em}
.activity-job{color:var(--vscode-descriptionForeground);font-size:.9em}
.activity-item.escalation .activity-tool{color:var(--vscode-editorWarning-foreground)}
.workflow-item{padding:4px 6px;cursor:pointer;border-left:2px solid transparent}
.workflow-item:hover{background:var(--vscode-list-hoverBackground)}
.workflow-item.selected{background:var(--vscode-list-activeSelectionBackground);color:var(--vscode-list-activeSelectionForeground);border-left-color:var(--vscode-focusBorder)}
.wf-meta{display:block}
.wf-status,.pulse-status,.card-status{font-size:.8em;padding:0 4px;border-radius:3px;background:var(--vscode-badge-background);color:var(--vscode-badge-foreground)}
#stage-timeline{display:flex;flex-wrap:wrap;list-style:none;padding:0;gap:2px}
.stage{padding:2px 6px;font-size:.85em;border:1px solid var(--vscode-panel-border);border-radius:3px}
.stage[data-state=done]{opacity:.7}.stage[data-state=done]::before{content:'✓ '}
.stage[data-state=current]{border-color:var(--vscode-focusBorder);font-weight:bold}
.stage[data-state=todo]{opacity:.5}
.card{border:1px solid var(--vscode-panel-border);padding:4px 8px;margin:6px 0}
.card summary{cursor:pointer}
.dryrun{border:1px dashed var(--vscode-panel-border);padding:4px 8px;margin:6px 0}
.dryrun h4{margin:6px 0 2px}
.dryrun-outcome,.dryrun-count,.dryrun-reason{color:var(--vscode-descriptionForeground)}
#pulses{padding-left:1.4em}
#lanes{padding-left:1.4em;margin:0 0 .4em}.lane-idle{opacity:.6}.pulse-lane{font-size:.9em;opacity:.85}
.pulse-item{margin:4px 0}
.pulse-item[data-status=Failed] .pulse-status{background:var(--vscode-errorForeground)}
.pulse-recovery{font-size:.8em;color:var(--vscode-editorWarning-foreground)}
.pulse-failure{color:var(--vscode-errorForeground)}
.pulse-item[data-reverted=true] .pulse-title{text-decoration:line-through;opacity:.8}.pulse-reverted{font-size:.9em;color:var(--vscode-editorWarning-foreground)}
.add{color:var(--vscode-gitDecoration-addedResourceForeground)}.del{color:var(--vscode-gitDecoration-deletedResourceForeground)}
.pending-item{border:1px solid var(--vscode-focusBorder);padding:6px 8px;margin:6px 0}
.pending-title{font-weight:bold}
.pending-workflow{font-weight:normal;margin-right:6px;cursor:pointer;color:var(--vscode-textLink-foreground)}
.pending-reason{font-style:italic;margin:2px 0}
.pending-detail{max-height:320px;overflow:auto}
.diff{font-family:var(--vscode-editor-font-family);font-size:.9em;margin:4px 0;padding:4px;background:var(--vscode-textCodeBlock-background);white-space:pre;overflow-x:auto}
.diff span{display:block}.diff-file{opacity:.7}.diff-hunk{color:var(--vscode-textLink-foreground)}
.diff-add{background:var(--vscode-diffEditor-insertedLineBackground,rgba(155,185,85,.2))}.diff-del{background:var(--vscode-diffEditor-removedLineBackground,rgba(255,0,0,.2))}
.question{margin:6px 0}.question-prompt{margin-bottom:3px}
.pending-choice{display:block}
.pending-ranked{padding-left:1.4em}
#review-comments{list-style:none;padding:0}
.comment{border-left:3px solid var(--vscode-editorInfo-foreground);padding:2px 6px;margin:4px 0}
.comment.severity-high{border-left-color:var(--vscode-editorError-foreground)}
.comment.severity-medium{border-left-color:var(--vscode-editorWarning-foreground)}
.comment-label{font-weight:bold}
.review-recommendation{font-weight:bold;text-transform:capitalize}
#activity{list-style:none;padding:0;margin:0;max-height:260px;overflow-y:auto}
.activity-item{padding:2px 0;border-bottom:1px solid var(--vscode-panel-border)}
.activity-item.failed .activity-tool{color:var(--vscode-errorForeground)}
.activity-item.nested{margin-left:1.2em;border-left:2px solid var(--vscode-panel-border);padding-left:.4em}
.activity-subagent{color:var(--vscode-descriptionForeground);font-size:.9em}
.activity-tool{font-family:var(--vscode-editor-font-family);font-weight:bold}
.activity-meta{display:block}
#messages{max-height:400px;overflow-y:auto}
.message{margin:4px 0;padding:4px 6px;border-radius:3px}
.message.role-user{background:var(--vscode-input-background)}
.message.role-note{font-style:italic;color:var(--vscode-descriptionForeground)}
#composer{position:sticky;bottom:0;background:var(--vscode-sideBar-background);padding:4px 0}
.composer-row{display:flex;justify-content:space-between;align-items:center}
#composer-hint{color:var(--vscode-descriptionForeground);font-size:.85em}
.markdown table{border-collapse:collapse}.markdown th,.markdown td{border:1px solid var(--vscode-panel-border);padding:2px 4px}
a{color:var(--vscode-textLink-foreground)}
`;

// Runs in the webview. Keeps the selection and the draft in the webview
// state, re-renders only sections whose HTML changed, and keeps what the
// user typed into text boxes across re-renders.
const script = `(function () {
  const vscode = acquireVsCodeApi();
  const post = (m) => vscode.postMessage(m);
  const save = (patch) => vscode.setState(Object.assign({}, vscode.getState() || {}, patch));
  const box = document.getElementById('message-box');
  const hint = document.getElementById('composer-hint');
  const last = {};
  box.value = (vscode.getState() || {}).draft || '';

  function keep(root) {
    const kept = {};
    root.querySelectorAll('[data-keep]').forEach((el) => { kept[el.dataset.keep] = el.value; });
    const a = document.activeElement;
    const focus = a && root.contains(a) && a.dataset && a.dataset.keep ? { key: a.dataset.keep, s: a.selectionStart, e: a.selectionEnd } : null;
    return { kept, focus };
  }
  function restore(root, k) {
    root.querySelectorAll('[data-keep]').forEach((el) => {
      const v = k.kept[el.dataset.keep];
      if (v !== undefined && v !== '') el.value = v;
      if (k.focus && k.focus.key === el.dataset.keep) {
        el.focus();
        try { el.setSelectionRange(k.focus.s, k.focus.e); } catch (e) {}
      }
    });
  }
  window.addEventListener('message', (ev) => {
    const m = ev.data || {};
    if (m.type === 'render') {
      for (const id of ${JSON.stringify(sectionIds)}) {
        const html = m.sections[id];
        if (html === undefined || last[id] === html) continue;
        last[id] = html;
        const el = document.querySelector('[data-section="' + id + '"]');
        if (!el) continue;
        const k = keep(el);
        const scroll = el.querySelector('#activity') ? el.querySelector('#activity').scrollTop : 0;
        const atBottom = el.querySelector('#activity') ? el.querySelector('#activity').scrollHeight - scroll - el.querySelector('#activity').clientHeight < 20 : true;
        el.innerHTML = html;
        restore(el, k);
        const feed = el.querySelector('#activity');
        if (feed) feed.scrollTop = atBottom ? feed.scrollHeight : scroll;
        const msgs = el.querySelector('#messages');
        if (msgs) msgs.scrollTop = msgs.scrollHeight;
      }
      if (typeof m.hint === 'string') hint.textContent = m.hint;
      save({ selected: m.selected });
    } else if (m.type === 'restoreDraft') {
      if (!box.value) { box.value = m.text || ''; save({ draft: box.value }); }
    } else if (m.type === 'focusPending') {
      const item = document.querySelector('.pending-item[data-id="' + CSS.escape(m.pendingId || '') + '"]');
      if (item) { item.scrollIntoView({ block: 'center' }); const f = item.querySelector('textarea, button'); if (f) f.focus(); }
    }
  });

  function answers(item) {
    return Array.from(item.querySelectorAll('.question')).map((q) => {
      const t = q.dataset.type;
      if (t === 'single_select') { const s = q.querySelector('.pending-option.selected'); return { values: s ? [s.dataset.value] : [] }; }
      if (t === 'multi_select') return { values: Array.from(q.querySelectorAll('.pending-check')).filter((c) => c.checked).map((c) => c.value) };
      if (t === 'ranked') return { values: Array.from(q.querySelectorAll('.ranked-option')).map((li) => li.dataset.value) };
      const ta = q.querySelector('textarea');
      return { values: [ta ? ta.value : ''] };
    });
  }
  function draft(item, q) {
    if (!item || item.dataset.stored === '1') return;
    const i = Number(q.dataset.q);
    post({ type: 'draft', pendingId: item.dataset.id, index: i, values: answers(item)[i].values });
  }
  function submit(item) {
    post({ type: 'answer', pendingId: item.dataset.id, workflowId: item.dataset.workflow || undefined, stored: item.dataset.stored === '1', answers: answers(item) });
  }
  function send() {
    const text = box.value;
    if (!text.trim()) return;
    post({ type: 'send', text });
    box.value = '';
    save({ draft: '' });
  }

  document.addEventListener('click', (ev) => {
    const el = ev.target.closest('[data-action]');
    if (!el) return;
    const a = el.dataset.action;
    if (a === 'select') { save({ selected: el.dataset.id }); post({ type: 'select', workflowId: el.dataset.id || '' }); }
    else if (a === 'command') post({ type: 'command', command: el.dataset.command });
    else if (a === 'workflow') post({ type: 'workflow', op: el.dataset.op, workflowId: el.dataset.id, pulseId: el.dataset.pulse });
    else if (a === 'job') post({ type: 'job', op: el.dataset.op, jobId: el.dataset.id });
    else if (a === 'fleet') { const ta = el.closest('li') && el.closest('li').querySelector('.run-answer-text'); post({ type: 'fleet', op: el.dataset.op, runId: el.dataset.id, text: el.dataset.answer !== undefined ? el.dataset.answer : ta ? ta.value : undefined }); }
    else if (a === 'open') { ev.preventDefault(); post({ type: 'open', file: el.dataset.file, start: Number(el.dataset.start), end: Number(el.dataset.end), uri: el.dataset.uri }); }
    else if (a === 'option') {
      const q = el.closest('.question');
      q.querySelectorAll('.pending-option').forEach((b) => b.classList.toggle('selected', b === el));
      const item = el.closest('.pending-item');
      if (el.dataset.submit) submit(item); else draft(item, q);
    } else if (a === 'rank') {
      const li = el.closest('li');
      if (el.dataset.dir === '-1' && li.previousElementSibling) li.parentNode.insertBefore(li, li.previousElementSibling);
      else if (el.dataset.dir === '1' && li.nextElementSibling) li.parentNode.insertBefore(li.nextElementSibling, li);
      draft(el.closest('.pending-item'), el.closest('.question'));
    } else if (a === 'submit') submit(el.closest('.pending-item'));
    else if (a === 'decide') {
      const item = el.closest('.pending-item');
      const fb = item.querySelector('.pending-feedback');
      post({ type: 'decide', pendingId: item.dataset.id, decision: el.dataset.decision, feedback: fb ? fb.value : '' });
    }
  });
  document.addEventListener('change', (ev) => {
    if (ev.target.classList && ev.target.classList.contains('pending-check')) draft(ev.target.closest('.pending-item'), ev.target.closest('.question'));
  });
  document.addEventListener('keydown', (ev) => {
    if (ev.target === box && ev.key === 'Enter' && (ev.ctrlKey || ev.metaKey)) { ev.preventDefault(); send(); }
    else if (ev.key === 'Enter' && ev.target.classList && ev.target.classList.contains('workflow-item')) ev.target.click();
  });
  box.addEventListener('input', () => save({ draft: box.value }));
  document.getElementById('send').addEventListener('click', send);
  post({ type: 'ready', selected: (vscode.getState() || {}).selected });
})();`;

/** The script, for a syntax check in tests. */
export const panelScript = script;
