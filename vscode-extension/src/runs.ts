// The one list of runs of the side panel: every workflow, job and swarm of
// the project, and its runs on the fleet's workers, from autarch/runs
// (refreshed, debounced, on the server's typed events), each with its kind
// as a badge, its status, branch and when. Each kind keeps its actions: a
// workflow row selects it (its pulses and review below), a job row carries
// its buttons (resume with guidance, stop, answer, apply), a swarm row
// opens the Swarm view, a fleet run shows its worker, the question it waits
// on (answered here) and Apply once it completed. Pure rendering; the
// buttons run palette commands (commands.ts, jobCommands.ts, fleetCommands.ts).
import { jobActions } from './jobs';
import { MethodRuns, type JobSummary, type RunSummary, type WorkflowSummary } from './lspext.gen';
import { RefreshedList, type Request } from './refreshList';
import { escapeHtml } from './status';

export class RunList extends RefreshedList<RunSummary> {
  constructor(request: Request) {
    super(request, MethodRuns, 300);
  }

  get runs(): RunSummary[] {
    return this.items;
  }

  find(id: string): RunSummary | undefined {
    return this.items.find((r) => r.id === id);
  }
}

/** What the list of runs renders from. */
export interface RunsView {
  /** autarch/runs; undefined until it answered (the workflows alone are shown). */
  runs?: RunSummary[];
  runsError?: string;
  workflows: WorkflowSummary[];
  jobs?: JobSummary[];
  /** The selected workflow id; "" is the discussion. */
  selected: string;
  /** A fleet is configured (autarch.fleet.natsUrl): "Run in Background" shows. */
  fleet?: boolean;
  /** Now, for "when" (tests pin it). */
  now?: number;
}

const e = escapeHtml;
const attr = (s: string | number | boolean | undefined): string => e(String(s ?? ''));
const slug = (s: string): string => s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');

/** The badge of a run's kind: an icon and the kind's word. */
export const kindBadges: Record<string, { icon: string; label: string }> = {
  workflow: { icon: '◆', label: 'workflow' },
  job: { icon: '▲', label: 'job' },
  swarm: { icon: '✶', label: 'swarm' },
};

/** How long ago an RFC 3339 time was, in words ("" when it is not one). */
export function when(iso: string, now: number): string {
  const t = Date.parse(iso);
  if (!Number.isFinite(t)) return '';
  const s = Math.max(0, Math.round((now - t) / 1000));
  if (s < 60) return 'just now';
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86400)} d ago`;
}

/** What a fleet run's row offers: an answer while it waits on one, Apply once it completed with a branch. */
export function fleetActions(r: RunSummary): ('answer' | 'apply')[] {
  const ops: ('answer' | 'apply')[] = [];
  if (r.prompt) ops.push('answer');
  if (r.status === 'Completed' && r.branch) ops.push('apply');
  return ops;
}

/**
 * The choices a fleet run's prompt offers as buttons: the terminal's approval prompt names each
 * ("approve [y], reject [n], always allow [w]?"); a button answers with its key. A question
 * without such choices is answered in the text box only.
 */
export function promptChoices(prompt: string): { label: string; answer: string }[] {
  return [...prompt.matchAll(/([A-Za-z][A-Za-z ]*?) \[([a-z0-9])\]/g)].map((m) => ({ label: m[1].trim().replace(/^./, (c) => c.toUpperCase()), answer: m[2] }));
}

/** The head of the list: its title and the buttons that start runs ("Run in Background" only with a fleet). */
function renderHead(fleet: boolean | undefined): string {
  return (
    `<div class="section-head"><h2>Runs</h2><span class="buttons">` +
    `<button id="new-workflow" class="secondary" data-action="command" data-command="autarch.ui.newWorkflow">New Workflow</button> ` +
    `<button id="start-job" class="secondary" data-action="command" data-command="autarch.ui.startJob">Start Job</button>` +
    (fleet
      ? ` <button id="run-in-background" class="secondary" data-action="command" data-command="autarch.ui.runInBackground" title="Queue a workflow or job for the fleet's workers (autarch.fleet.natsUrl); it shows here with its worker">Run in Background</button>`
      : '') +
    `</span></div>`
  );
}

/** The list of runs (the panel's "workflows" section): the discussion first, then every run, most recent first. */
export function renderRuns(m: RunsView): string {
  const now = m.now ?? Date.now();
  const discussion = `<li class="workflow-item discussion${m.selected === '' ? ' selected' : ''}" data-action="select" data-id="" tabindex="0"><span class="wf-name">Discussion</span><span class="wf-meta">Ask about the codebase</span></li>`;
  const asRun = (w: WorkflowSummary): RunSummary => ({ kind: 'workflow', id: w.id, name: w.name, task: w.task, status: w.status, branch: w.branch, updatedAt: w.updatedAt });
  // Workflows the runs' list has not caught up with yet (it refreshes a moment after their events) come first.
  const runs: RunSummary[] = m.runs
    ? [...m.workflows.filter((w) => !m.runs?.some((r) => r.kind === 'workflow' && r.id === w.id)).map(asRun), ...m.runs]
    : m.workflows.map(asRun);
  const rows = runs.map((r) => renderRun(r, m, now));
  return renderHead(m.fleet) + (m.runsError ? `<div class="error">${e(m.runsError)}</div>` : '') + `<ul id="workflows">${[discussion, ...rows].join('')}</ul>`;
}

function badge(r: RunSummary): string {
  const b = kindBadges[r.kind] ?? { icon: '•', label: r.kind };
  return (
    `<span class="run-kind" data-kind="${attr(r.kind)}" title="${attr(b.label)}">${e(b.icon)} ${e(b.label)}</span>` +
    (r.fleet ? ` <span class="run-fleet" title="runs on the fleet's workers">fleet${r.worker ? ` · <span class="run-worker">${e(r.worker)}</span>` : ''}</span>` : '')
  );
}

function meta(r: RunSummary, now: number, extra = ''): string {
  const parts = [extra, r.branch ? `<code class="run-branch">${e(r.branch)}</code>` : '', `<span class="run-when" title="${attr(r.updatedAt)}">${e(when(r.updatedAt, now))}</span>`].filter(Boolean);
  return `<span class="wf-meta">${parts.join(' · ')}</span>`;
}

function renderRun(r: RunSummary, m: RunsView, now: number): string {
  const status = `<span class="wf-status status-${slug(r.status)}">${e(r.status)}</span>`;
  if (r.fleet) return renderFleetRun(r, status, now);
  if (r.kind === 'workflow') {
    const w = m.workflows.find((x) => x.id === r.id);
    const stage = w ? `${e(w.stage)}${w.pulses ? ` · ${w.pulsesDone}/${w.pulses} pulses` : ''}` : '';
    return (
      `<li class="workflow-item${r.id === m.selected ? ' selected' : ''}" data-action="select" data-id="${attr(r.id)}" data-status="${attr(r.status)}" data-stage="${attr(w?.stage)}" data-kind="workflow" tabindex="0">` +
      `${badge(r)} <span class="wf-name">${e(r.name)}</span> ${status}${meta(r, now, stage)}</li>`
    );
  }
  if (r.kind === 'job') {
    const j = m.jobs?.find((x) => x.id === r.id);
    const ops = j ? jobActions(j) : [];
    const labels = { answer: 'Answer review…', stop: 'Stop', resume: 'Resume…', apply: 'Apply…' } as const;
    const buttons = ops.map((op) => `<button class="run-job-${op} secondary" data-action="job" data-op="${op}" data-id="${attr(r.id)}">${labels[op]}</button>`).join(' ');
    return (
      `<li class="run-item" data-kind="job" data-id="${attr(r.id)}" data-status="${attr(r.status)}">${badge(r)} <span class="wf-name">${e(r.name)}</span> ${status}${meta(r, now)}` +
      (buttons ? `<div class="run-actions buttons">${buttons}</div>` : '') +
      `</li>`
    );
  }
  if (r.kind === 'swarm') {
    return (
      `<li class="run-item" data-kind="swarm" data-id="${attr(r.id)}" data-status="${attr(r.status)}">${badge(r)} <span class="wf-name">${e(r.name)}</span> ${status}${meta(r, now)}` +
      `<div class="run-actions buttons"><button class="run-swarm-view secondary" data-action="command" data-command="autarch.swarm.focus">View in Swarm</button></div></li>`
    );
  }
  return `<li class="run-item" data-kind="${attr(r.kind)}" data-id="${attr(r.id)}" data-status="${attr(r.status)}">${badge(r)} <span class="wf-name">${e(r.name)}</span> ${status}${meta(r, now)}</li>`;
}

function renderFleetRun(r: RunSummary, status: string, now: number): string {
  const reason = r.statusReason && r.status !== 'Running' ? `<div class="run-reason wf-meta">${e(r.statusReason)}</div>` : '';
  const ops = fleetActions(r);
  const question = ops.includes('answer')
    ? `<div class="run-question">` +
      ((r.context ?? []).length ? `<pre class="run-context">${e((r.context ?? []).slice(-12).join('\n'))}</pre>` : '') +
      `<div class="run-prompt">${e(r.prompt ?? '')}</div>` +
      promptChoices(r.prompt ?? '')
        .map((c) => `<button class="run-choice secondary" data-action="fleet" data-op="answer" data-id="${attr(r.id)}" data-answer="${attr(c.answer)}">${e(c.label)}</button> `)
        .join('') +
      `<textarea class="run-answer-text" rows="1" placeholder="Your answer (as you would type it after autarch submit --wait)"></textarea>` +
      `<button class="run-answer" data-action="fleet" data-op="answer" data-id="${attr(r.id)}">Answer</button></div>`
    : '';
  const apply = ops.includes('apply')
    ? `<div class="run-actions buttons"><button class="run-apply secondary" data-action="fleet" data-op="apply" data-id="${attr(r.id)}" title="Fetch ${attr(r.branch)} from the remote, then fast-forward or apply as an edit">Apply…</button></div>`
    : '';
  return (
    `<li class="run-item" data-kind="${attr(r.kind)}" data-fleet="true" data-id="${attr(r.id)}" data-status="${attr(r.status)}"${r.prompt ? ' data-waiting="true"' : ''}>` +
    `${badge(r)} <span class="wf-name">${e(r.name)}</span> ${status}${meta(r, now)}<div class="run-task wf-meta">${e(r.task)}</div>${reason}${question}${apply}</li>`
  );
}
