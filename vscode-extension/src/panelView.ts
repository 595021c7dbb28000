// Pure rendering of the side panel's sections (HTML strings) from a model.
// Everything from the server is escaped (escapeHtml) or rendered by the safe
// Markdown renderer; the DOM ids and classes are listed in panel.ts.
import type { DryRunPlanView, JobSummary, RunSummary, Answer, Approval, CardView, CommentView, MessageView, PulseView, Question, ReviewView, ProjectState, ServerStatus, WorkflowDetail, WorkflowSummary } from './lspext.gen';
import { isUnifiedDiff, renderDiff } from './diff';
import { renderJobs, type FeedItem } from './jobs';
import { renderMarkdown } from './markdown';
import { renderRuns } from './runs';
import { canRedo, canRevert, pulseStatusLabel } from './revertView';
import type { PendingItem } from './pending';
import type { StoredPending } from './questions';
import { commentPlace, severityOf, threadLabel } from './review';
import type { DryRunPlan } from './state';
import { escapeHtml, renderProject, renderStatus, type ServerState } from './status';

/** A stored pending item of a workflow that no live request covers. */
export interface StoredItem {
  workflowId: string;
  item: StoredPending;
}

export interface PanelModel {
  serverState: ServerState;
  status?: ServerStatus;
  /** The first folder's MCP servers and project rules (autarch/project). */
  project?: ProjectState;
  error?: string;
  workflows: WorkflowSummary[];
  /** The selected workflow id; "" is the discussion. */
  selected: string;
  detail?: WorkflowDetail;
  detailError?: string;
  /** Live requests (autarch/askQuestions, autarch/approve), all workflows. */
  pending: PendingItem[];
  /** Stored pending items of the selected workflow without a live request. */
  stored: StoredItem[];
  /** The dry runs' plans (editor dry runs are never listed), the latest first. */
  dryRuns?: DryRunPlan[];
  /** The activity feed: the selected workflow's calls merged by time with the jobs' calls and escalations. */
  activity: FeedItem[];
  /** The conversation: the selected workflow's messages, or the discussion. */
  messages: MessageView[];
  /** The review to show: the selected workflow's, or the last branch review in the discussion. */
  review?: ReviewView;
  /** The jobs (autarch job), most recently updated first. */
  jobs?: JobSummary[];
  jobsError?: string;
  /** The one list of runs (autarch/runs), most recently updated first; undefined until it answered. */
  runs?: RunSummary[];
  runsError?: string;
  /** A fleet is configured (autarch.fleet.natsUrl): "Run in Background" shows. */
  fleet?: boolean;
  /** Now (ms), for the runs' "when" (tests pin it). */
  now?: number;
}

export type SectionId = 'pending' | 'dryrun' | 'workflows' | 'jobs' | 'workflow' | 'activity' | 'conversation' | 'server';
export const sectionIds: readonly SectionId[] = ['pending', 'dryrun', 'workflows', 'jobs', 'workflow', 'activity', 'conversation', 'server'];

const e = escapeHtml;
const attr = (s: string | number | boolean | undefined): string => e(String(s ?? ''));
const slug = (s: string): string => s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');

/** Every section's inner HTML. */
export function renderPanel(m: PanelModel): Record<SectionId, string> {
  return {
    pending: renderPending(m),
    dryrun: renderDryRuns(m.dryRuns ?? []),
    workflows: renderWorkflows(m),
    jobs: renderJobs(m.jobs ?? [], m.jobsError),
    workflow: renderWorkflow(m),
    activity: renderActivity(m.activity),
    conversation: renderConversation(m.messages, m.selected),
    server: renderServer(m),
  };
}

function workflowName(m: PanelModel, id: string | undefined): string {
  if (!id) return '';
  return m.workflows.find((w) => w.id === id)?.name ?? id;
}

// ---- dry runs ----

/** The "Dry run plan" section: each dry run's recorded calls by stage and the files they would change ("" when there are none). */
function renderDryRuns(runs: DryRunPlan[]): string {
  if (!runs.length) return '';
  return `<section id="dry-run-plans"><h3>Dry run plan</h3>${runs.map((r) => renderDryRun(r.workflowId, r.plan)).join('')}</section>`;
}

function renderDryRun(workflowId: string, p: DryRunPlanView): string {
  const entries = p.entries ?? [];
  const files = p.files ?? [];
  const status = p.ended
    ? `<div class="dryrun-outcome">${e(p.outcome || 'The dry run ended; nothing was changed.')}</div>`
    : `<div class="dryrun-outcome">Running: reads run, writes and commands are recorded here, not executed.</div>`;
  const stages: { stage: string; rows: string[] }[] = [];
  entries.forEach((x, i) => {
    const stage = x.stage ?? '';
    if (!stages.length || stages[stages.length - 1].stage !== stage) stages.push({ stage, rows: [] });
    stages[stages.length - 1].rows.push(
      `<li class="dryrun-entry" value="${i + 1}" data-tool="${attr(x.tool)}"${x.path ? ` data-path="${attr(x.path)}"` : ''}>` +
        `<span class="dryrun-action">${e(x.action)}</span>${x.reason?.trim() ? ` <span class="dryrun-reason">— ${e(x.reason.trim())}</span>` : ''}</li>`,
    );
  });
  const list = entries.length
    ? stages.map((s) => `<div class="dryrun-stage" data-stage="${attr(s.stage)}">${s.stage ? `<h4>${e(s.stage)}</h4>` : ''}<ol class="dryrun-entries">${s.rows.join('')}</ol></div>`).join('')
    : `<p class="empty">No write or command planned${p.ended ? '' : ' yet'}.</p>`;
  const changed = files.length
    ? `<h4>Files that would change</h4><ul class="dryrun-files">${files.map((f) => `<li class="dryrun-file" data-path="${attr(f.path)}"><code>${e(f.path)}</code>: ${e((f.changes ?? []).join('; '))}</li>`).join('')}</ul>`
    : '';
  return (
    `<div class="dryrun" data-workflow="${attr(workflowId)}" data-ended="${p.ended ? 'true' : 'false'}">` +
    `<div class="dryrun-count">${entries.length} action${entries.length === 1 ? '' : 's'} planned, none executed</div>` +
    status + list + changed + `</div>`
  );
}

// ---- pending questions and approvals ----

function renderPending(m: PanelModel): string {
  const items = [
    ...m.pending.map((p) => (p.kind === 'approval' ? renderApproval(m, p.id, p.workflowId, p.approval, false) : renderQuestions(m, p.id, p.workflowId, p.title, p.questions, p.draft, false))),
    ...m.stored.map((s) => renderStored(m, s)),
  ];
  if (!items.length) return '';
  return `<h2>Waiting for you <span class="count">${items.length}</span></h2>\n${items.join('\n')}`;
}

function renderStored(m: PanelModel, s: StoredItem): string {
  const it = s.item;
  if (it.kind === 'questions') {
    const lead = it.message ? `<div class="pending-message markdown">${renderMarkdown(it.message)}</div>` : '';
    return renderQuestions(m, it.id, s.workflowId, undefined, it.questions, [], true, lead);
  }
  if (it.kind === 'approval') return renderApproval(m, it.id, s.workflowId, it.approval, true);
  return (
    `<div class="pending-item pending-unknown" data-id="${attr(it.id)}" data-kind="${attr(it.pendingKind)}" data-workflow="${attr(s.workflowId)}" data-stored="1">` +
    `<div class="pending-title">${e(it.pendingKind)} (${e(it.stage)})</div><pre>${e(it.text)}</pre>` +
    `<button class="pending-resume" data-action="workflow" data-op="resume" data-id="${attr(s.workflowId)}">Resume to answer</button></div>`
  );
}

function workflowTag(m: PanelModel, workflowId: string | undefined): string {
  const name = workflowName(m, workflowId);
  return name ? `<span class="pending-workflow" data-action="select" data-id="${attr(workflowId)}">${e(name)}</span>` : '';
}

/** Stored approvals of these kinds (cards) are decided with autarch.answer; others are asked again on resume. */
export function decidableStored(kind: string): boolean {
  return kind === 'scope' || kind === 'research' || kind === 'plan';
}

function renderApproval(m: PanelModel, id: string, workflowId: string | undefined, a: Approval, stored: boolean): string {
  const head =
    `<div class="pending-item pending-approval" data-id="${attr(id)}" data-kind="${attr(a.kind)}" data-workflow="${attr(workflowId)}"${stored ? ' data-stored="1"' : ''}>` +
    `<div class="pending-title">${workflowTag(m, workflowId)}${e(a.title)}</div>` +
    (a.reason ? `<div class="pending-reason">Why: ${e(a.reason)}</div>` : '') +
    (isUnifiedDiff(a.detail) ? `<div class="pending-detail">${renderDiff(a.detail)}</div>` : a.detail ? `<div class="pending-detail markdown">${renderMarkdown(a.detail)}</div>` : '');
  if (stored && !decidableStored(a.kind)) {
    // Only stored cards can be decided by command: resuming the workflow asks the others again.
    return (
      head +
      `<div class="pending-note">Asked before the editor or server restarted. Resume the workflow to decide.</div>` +
      `<div class="buttons"><button class="pending-resume" data-action="workflow" data-op="resume" data-id="${attr(workflowId)}">Resume to decide</button></div></div>`
    );
  }
  return (
    head +
    `<textarea class="pending-feedback" data-keep="fb-${attr(id)}" rows="2" placeholder="What should change? (sent with Request Changes)"></textarea>` +
    (stored ? `<div class="pending-note">Asked before the editor or server restarted; deciding resumes the workflow.</div>` : '') +
    `<div class="buttons"><button class="pending-approve" data-action="decide" data-decision="approve" data-pending="${attr(id)}">Approve</button> ` +
    `<button class="pending-reject secondary" data-action="decide" data-decision="reject" data-pending="${attr(id)}">Request Changes</button>` +
    (a.allowAlways ? ` <button class="pending-always secondary" data-action="decide" data-decision="always" data-pending="${attr(id)}">Always allow</button>` : '') +
    (a.allowAbort ? ` <button class="pending-abort secondary" data-action="decide" data-decision="abort" data-pending="${attr(id)}" title="Stop the whole run; resume the workflow later">Abort All</button>` : '') +
    `</div></div>`
  );
}

function renderQuestions(
  m: PanelModel,
  id: string,
  workflowId: string | undefined,
  title: string | undefined,
  questions: Question[],
  draft: (Answer | undefined)[],
  stored: boolean,
  lead = '',
): string {
  const immediate = questions.length === 1 && questions[0].type === 'single_select';
  const qs = questions.map((q, i) => renderQuestion(id, i, q, draft[i]?.values ?? [], immediate)).join('');
  return (
    `<div class="pending-item pending-questions" data-id="${attr(id)}" data-kind="questions" data-workflow="${attr(workflowId)}"${stored ? ' data-stored="1"' : ''}>` +
    `<div class="pending-title">${workflowTag(m, workflowId)}${e(title || (questions.length === 1 ? 'A question for you' : `${questions.length} questions for you`))}</div>` +
    lead +
    qs +
    (immediate ? '' : `<div class="buttons"><button class="pending-submit" data-action="submit" data-pending="${attr(id)}">Send answers</button></div>`) +
    `</div>`
  );
}

function renderQuestion(id: string, i: number, q: Question, values: string[], immediate: boolean): string {
  const options = q.options ?? [];
  let body: string;
  switch (q.type) {
    case 'single_select':
      body = options
        .map(
          (o) =>
            `<button class="pending-option${values.includes(o) ? ' selected' : ''}" data-action="option" data-pending="${attr(id)}" data-q="${i}" data-value="${attr(o)}"${immediate ? ' data-submit="1"' : ''}>${e(o)}</button>`,
        )
        .join(' ');
      break;
    case 'multi_select':
      body = options
        .map((o) => `<label class="pending-choice"><input type="checkbox" class="pending-check" value="${attr(o)}"${values.includes(o) ? ' checked' : ''}> ${e(o)}</label>`)
        .join('');
      break;
    case 'ranked': {
      const order = values.length === options.length ? values : options;
      body =
        `<ol class="pending-ranked">` +
        order
          .map(
            (o) =>
              `<li class="ranked-option" data-value="${attr(o)}"><span>${e(o)}</span> <button class="rank-up icon" data-action="rank" data-dir="-1" title="Move up">▲</button><button class="rank-down icon" data-action="rank" data-dir="1" title="Move down">▼</button></li>`,
          )
          .join('') +
        `</ol>`;
      break;
    }
    default:
      body = `<textarea class="pending-text" data-keep="t-${attr(id)}-${i}" rows="3" placeholder="Your answer">${e(values[0] ?? '')}</textarea>`;
  }
  return `<div class="question" data-q="${i}" data-type="${attr(q.type)}"><div class="question-prompt">${e(q.prompt)}</div>${body}</div>`;
}

// ---- workflows ----

/** The one list of runs (runs.ts): every workflow, job and swarm, and the fleet's runs, with their kind. */
function renderWorkflows(m: PanelModel): string {
  return renderRuns({ runs: m.runs, runsError: m.runsError, workflows: m.workflows, jobs: m.jobs, selected: m.selected, fleet: m.fleet, now: m.now });
}

function renderWorkflow(m: PanelModel): string {
  if (m.selected === '') return m.review ? renderReview(m.review) : '';
  if (m.detailError) return `<p class="error">${e(m.detailError)}</p>`;
  const d = m.detail;
  if (!d || d.summary.id !== m.selected) return `<p class="loading">Loading…</p>`;
  const s = d.summary;
  const active = s.status === 'Active' || s.status === 'AwaitingUser';
  const header =
    `<div id="workflow-header" data-id="${attr(s.id)}" data-status="${attr(s.status)}">` +
    `<h2>${e(s.name)} <span class="wf-status status-${slug(s.status)}">${e(s.status)}</span></h2>` +
    `<div class="wf-task">${e(s.task)}</div>` +
    (s.statusReason ? `<div class="wf-reason">${e(s.statusReason)}</div>` : '') +
    `<div class="wf-meta">Branch <code>${e(s.branch)}</code>${s.path ? ` · ${e(s.path)} path` : ''}</div>` +
    `<div class="buttons">` +
    (active ? `<button class="wf-stop secondary" data-action="workflow" data-op="stop" data-id="${attr(s.id)}">Stop</button> ` : '') +
    (!active && s.status !== 'Completed' && s.status !== 'Abandoned' ? `<button class="wf-resume" data-action="workflow" data-op="resume" data-id="${attr(s.id)}">Resume</button> ` : '') +
    `<button class="wf-diff secondary" data-action="workflow" data-op="diff" data-id="${attr(s.id)}">Diff</button> ` +
    `<button class="wf-apply secondary" data-action="workflow" data-op="apply" data-id="${attr(s.id)}">Apply…</button>` +
    `</div></div>`;
  const timeline =
    `<ol id="stage-timeline">` +
    (d.stages ?? []).map((st) => `<li class="stage stage-${slug(st.state)}" data-stage="${attr(st.stage)}" data-state="${attr(st.state)}">${e(st.stage)}</li>`).join('') +
    `</ol>`;
  const cards = [renderCard('scope', d.scope), renderCard('research', d.research), renderCard('plan', d.plan)].join('');
  const pulses = d.pulses?.length ? `<h3>Pulses</h3>${renderLanes(d)}<ol id="pulses">${d.pulses.map((p) => renderPulse(s.id, p)).join('')}</ol>` : '';
  const review = d.review ? renderReview(d.review) : '';
  const usage = `<div id="usage"><span class="usage-tokens">${s.tokens.toLocaleString('en-US')} tokens</span> · <span class="usage-cost">$${s.cost.toFixed(s.cost < 1 ? 4 : 2)}</span></div>`;
  return header + timeline + cards + pulses + review + usage;
}

function renderCard(id: 'scope' | 'research' | 'plan', c: CardView | null | undefined): string {
  if (!c) return '';
  return (
    `<details id="${id}" class="card" data-status="${attr(c.status)}"${c.status === 'Pending' || c.status === 'pending' ? ' open' : ''}>` +
    `<summary><span class="card-title">${e(c.title || id)}</span> <span class="card-status">${e(c.status)}</span></summary>` +
    `<div class="markdown">${renderMarkdown(c.markdown || '')}</div>` +
    (c.feedback ? `<div class="card-feedback">Feedback: ${e(c.feedback)}</div>` : '') +
    `</details>`
  );
}

// renderLanes shows parallel pulses' lanes: which pulse runs in each.
function renderLanes(d: WorkflowDetail): string {
  const n = d.parallel ?? 1;
  if (n <= 1) return '';
  const lanes = Array.from({ length: n }, (_, i) => {
    const running = d.pulses.filter((p) => p.lane === i + 1);
    return `<li class="lane" data-lane="${i + 1}">lane ${i + 1}: ${running.length ? running.map((p) => `<span class="lane-pulse">${e(p.id)}</span>`).join(', ') : '<span class="lane-idle">idle</span>'}</li>`;
  });
  return `<ol id="lanes" data-parallel="${n}">${lanes.join('')}</ol>`;
}

// renderPulseLane says where a parallel pulse runs, what it waits on and
// its place in the merge order.
function renderPulseLane(p: PulseView): string {
  const parts: string[] = [];
  if (p.mergeOrder) parts.push(`merge #${p.mergeOrder}`);
  if (p.lane) parts.push(`lane ${p.lane}`);
  if (p.waitingOn?.length) parts.push(`waiting on ${p.waitingOn.map(e).join(', ')}`);
  if (!p.lane && !p.waitingOn?.length) return '';
  return `<div class="pulse-lane"${p.lane ? ` data-lane="${p.lane}"` : ''}>${parts.join(' · ')}</div>`;
}

/** The Revert…/Redo… buttons of a done or reverted pulse. */
function renderPulseUndo(workflowId: string, p: PulseView): string {
  const button = (op: 'revert' | 'redo' | 'receipt', label: string, title: string) =>
    ` <button class="pulse-${op} icon" data-action="workflow" data-op="${op}" data-id="${attr(workflowId)}" data-pulse="${attr(p.id)}" title="${attr(title)}">${label}</button>`;
  if (canRevert(p)) {
    return button('receipt', 'Receipt', 'Show the completion receipt of this pulse’s checkpoint: the gates run, their results, the tree') +
      button('revert', 'Revert…', 'Undo this pulse (and the later pulses that depend on it) on the workflow branch');
  }
  if (canRedo(p)) return button('redo', 'Redo…', 'Run this reverted pulse again, with optional guidance');
  return '';
}

function renderPulse(workflowId: string, p: PulseView): string {
  const unresolved = p.unresolved?.length ? `<ul class="pulse-unresolved">${p.unresolved.map((u) => `<li>${e(u)}</li>`).join('')}</ul>` : '';
  return (
    `<li class="pulse-item" data-id="${attr(p.id)}" data-status="${attr(p.status)}"${p.reverted ? ' data-reverted="true"' : ''}>` +
    `<div><span class="pulse-title">${e(p.title)}</span> <span class="pulse-status status-${slug(pulseStatusLabel(p))}">${e(pulseStatusLabel(p))}</span>` +
    (p.recovery ? ` <span class="pulse-recovery" title="A recovery checkpoint keeps the work of the failed or stopped pulse">recovery checkpoint</span>` : '') +
    `</div>` +
    (p.summary ? `<div class="pulse-summary">${e(p.summary)}</div>` : '') +
    `<div class="pulse-meta">` +
    (p.commit ? `<code class="pulse-commit">${e(p.commit.slice(0, 10))}</code> ` : '') +
    `<span class="pulse-stats">${p.files} file${p.files === 1 ? '' : 's'} <span class="add">+${p.additions}</span> <span class="del">−${p.deletions}</span></span>` +
    (p.commit ? ` <button class="pulse-diff icon" data-action="workflow" data-op="diff" data-id="${attr(workflowId)}" data-pulse="${attr(p.id)}">Diff</button>` : '') +
    renderPulseUndo(workflowId, p) +
    `</div>` +
    (p.reverted ? `<div class="pulse-reverted">Reverted: its work was undone on the workflow branch${p.guidance ? `; redo guidance: ${e(p.guidance)}` : ''}. Redo runs it again.</div>` : '') +
    (p.failureReason ? `<div class="pulse-failure">${e(p.failureReason)}</div>` : '') +
    renderPulseLane(p) +
    unresolved +
    `</li>`
  );
}

function renderComment(c: CommentView): string {
  const place = commentPlace(c);
  let loc = '';
  if (c.filePath) {
    const lines = place === 'line' ? `:${c.startLine}${c.endLine && c.endLine !== c.startLine ? `-${c.endLine}` : ''}` : '';
    // data-uri: where the comment is anchored (an unapplied branch's reviewed copy), as its thread and diagnostic are.
    const uri = c.uri ? ` data-uri="${attr(c.uri)}"` : '';
    loc = `<a class="comment-location" href="#" data-action="open" data-file="${attr(c.filePath)}" data-start="${attr(c.startLine ?? 0)}" data-end="${attr(c.endLine ?? c.startLine ?? 0)}"${uri}>${e(c.filePath + lines)}</a>`;
  }
  return (
    `<li class="comment severity-${severityOf(c)}" data-id="${attr(c.id)}" data-severity="${severityOf(c)}" data-type="${place}" data-pre-existing="${c.preExisting ? 'true' : 'false'}">` +
    `<div class="comment-label">${e(threadLabel(c))}</div>${loc}` +
    `<div class="comment-description markdown">${renderMarkdown(c.description || '')}</div>` +
    (c.suggestion ? `<pre class="comment-suggestion"><code>${e(c.suggestion)}</code></pre>` : '') +
    `</li>`
  );
}

/** A commit id shortened to 10 characters; branch names stay whole. */
export function shortRef(ref: string): string {
  return /^[0-9a-f]{12,64}$/i.test(ref) ? ref.slice(0, 10) : ref;
}

function renderReview(r: ReviewView): string {
  const comments = r.comments ?? [];
  return (
    `<section id="review" data-status="${attr(r.status)}"><h3>Review${r.base ? ` against <code title="${attr(r.base)}">${e(shortRef(r.base))}</code>` : ''}</h3>` +
    (r.recommendation ? `<div class="review-recommendation rec-${slug(r.recommendation)}" data-recommendation="${attr(r.recommendation)}">${e(r.recommendation.replace(/_/g, ' '))}</div>` : `<div class="review-recommendation" data-recommendation="">${e(r.status || 'in progress')}</div>`) +
    (r.summary ? `<div class="review-summary markdown">${renderMarkdown(r.summary)}</div>` : '') +
    `<ul id="review-comments">${comments.map(renderComment).join('')}</ul>` +
    `</section>`
  );
}

// ---- activity and conversation ----

function renderActivity(items: FeedItem[]): string {
  const shown = items.slice(-200);
  const rows = shown
    .map(
      (a) =>
        `<li class="activity-item${a.failed ? ' failed' : ''}${a.subagent ? ' nested' : ''}${a.jobId ? ' job-activity' : ''}${a.kind ? ` ${a.kind}` : ''}" data-tool="${attr(a.tool)}" data-failed="${a.failed ? 'true' : 'false'}" data-stage="${attr(a.stage)}"${a.subagent ? ` data-subagent="${attr(a.subagent)}"` : ''}${a.jobId ? ` data-job="${attr(a.jobId)}"` : ''}>` +
        `${a.jobId ? `<span class="activity-job">job ${e(a.job ?? a.jobId)}</span> ` : ''}${a.subagent ? `<span class="activity-subagent">↳ ${e(a.subagent)}</span> ` : ''}<span class="activity-tool">${e(a.tool)}</span> <span class="activity-reason">${e(a.reason)}</span>` +
        `<span class="activity-meta">${activityMeta(a)}</span></li>`,
    )
    .join('');
  return `<h3>Activity</h3>` + (rows ? `<ul id="activity">${rows}</ul>` : `<ul id="activity"></ul><p class="empty">No tool calls yet.</p>`);
}

/** Where an entry ran and when: a workflow's stage and pulse (a job's entry is labelled with the job already). */
function activityMeta(a: FeedItem): string {
  const parts = a.jobId ? [] : [a.stage, a.pulseId ?? ''];
  if (a.time) parts.push(shortTime(a.time));
  return parts.filter((p) => p).map(e).join(' · ');
}

function shortTime(t: string): string {
  const m = /T(\d\d:\d\d:\d\d)/.exec(t);
  return m ? m[1] : t;
}

function renderConversation(messages: MessageView[], selected: string): string {
  const rows = messages
    .map((msg) => `<div class="message role-${slug(msg.role)}" data-role="${attr(msg.role)}" data-stage="${attr(msg.stage)}"><div class="message-meta">${e(msg.role)} · ${e(msg.stage)}</div><div class="message-text markdown">${renderMarkdown(msg.text)}</div></div>`)
    .join('');
  const empty = selected === '' ? 'Ask anything about the codebase.' : 'No messages in this workflow yet.';
  return `<h3>Conversation</h3><div id="messages">${rows || `<p class="empty">${empty}</p>`}</div>`;
}

function renderServer(m: PanelModel): string {
  const ok = m.serverState === 'running' && m.status?.model.configured && !m.error;
  const project = m.project ? `<details id="project-config"><summary>MCP servers and project rules</summary>${renderProject(m.project)}</details>` : '';
  return `<details id="server-status"${ok ? '' : ' open'}><summary>Server</summary>${renderStatus(m.serverState, m.status, m.error)}</details>${project}`;
}
