// Jobs: one coding-team agent on its own ai/… branch (autarch job). The
// list the side panel shows (refreshed on autarch/jobEvent), its HTML, and
// the palette commands that start and apply jobs. Pure except the
// commands: requests go through an injected function.
//
// DOM contract (the end-to-end test asserts on it):
//   #jobs > li.job-item[data-id][data-status][data-mode]  .job-name .job-status .job-task
//     .job-branch  .job-commit[data-hash] (hash and message)  .job-tests[data-status]  .job-lint[data-status]
//     .job-escalation[data-status] (reason, severity, answer)  .job-usage (tokens/budget, cost)
import { MethodJobs, type EscalationView, type JobCheckView, type JobEvent, type JobSummary } from './lspext.gen';
import { RefreshedList, type Request } from './refreshList';
import { escapeHtml } from './status';

/** The jobs list, refreshed (debounced) on every job event. */
export class JobList extends RefreshedList<JobSummary> {
  constructor(request: Request, delay = 150) {
    super(request, MethodJobs, delay);
  }

  get jobs(): JobSummary[] {
    return this.items;
  }

  /** Takes a job event: refreshes soon. */
  onEvent(ev: JobEvent): void {
    if (!ev || typeof ev !== 'object' || typeof ev.jobId !== 'string') return;
    this.scheduleRefresh();
  }

  /** A job by id, id prefix or name. */
  find(ref: string): JobSummary | undefined {
    return this.jobs.find((j) => j.id === ref || j.name === ref) ?? this.jobs.find((j) => ref.length >= 4 && j.id.startsWith(ref));
  }
}

const e = escapeHtml;
const attr = (s: string | number | boolean | undefined): string => e(String(s ?? ''));

/** The side panel's jobs section ("" when there are none). */
export function renderJobs(jobs: JobSummary[], error?: string): string {
  if (!jobs.length && !error) return '';
  const items = jobs.map(renderJob).join('\n');
  return `<h2>Jobs <span class="count">${jobs.length}</span></h2>\n${error ? `<div class="error">${e(error)}</div>` : ''}<ul id="jobs">${items}</ul>`;
}

function renderJob(j: JobSummary): string {
  const reason = j.statusReason && j.status !== 'Running' ? ` — ${e(j.statusReason)}` : '';
  const commits = (j.commits ?? []).map(
    (c) => `<div class="job-commit" data-hash="${attr(c.hash)}"><code>${e(c.hash.slice(0, 8))}</code> ${e(firstLine(c.message))} <span class="wf-meta">(${c.files} file${c.files === 1 ? '' : 's'})</span></div>`,
  );
  return (
    `<li class="job-item" data-id="${attr(j.id)}" data-status="${attr(j.status)}" data-mode="${attr(j.mode)}">` +
    `<div><strong class="job-name">${e(j.name)}</strong> <span class="job-status">${e(j.status)}</span> <span class="wf-meta">${e(j.mode)}</span>${reason}</div>` +
    `<div class="job-task wf-meta">${e(j.task)}</div>` +
    `<div class="job-branch">Branch: <code>${e(j.branch || '(not yet created)')}</code> <span class="wf-meta">from ${e(j.base)}</span></div>` +
    commits.join('') +
    renderCheck('tests', 'Tests', j.tests) +
    renderCheck('lint', 'Lint', j.lint) +
    (j.escalations ?? []).map(renderEscalation).join('') +
    `<div class="job-usage wf-meta">${j.tokens.toLocaleString('en-US')} / ${j.tokenBudget.toLocaleString('en-US')} tokens · ${j.iterations} model calls · $${j.cost.toFixed(4)}</div>` +
    `</li>`
  );
}

function renderCheck(cls: string, label: string, c: JobCheckView | null): string {
  if (!c) return '';
  return `<div class="job-${cls}" data-status="${attr(c.status)}">${label}: ${e(c.status)}${c.summary ? ` (${e(c.summary)})` : ''}</div>`;
}

function renderEscalation(x: EscalationView): string {
  const answer = x.status === 'Answered' ? `${x.approved ? 'approved' : 'declined'}${x.feedback ? `: ${e(x.feedback)}` : ''}` : 'waiting for you';
  return `<div class="job-escalation" data-status="${attr(x.status)}">Review (${e(x.severity || 'medium')}): ${e(x.reason)} — ${answer}</div>`;
}

function firstLine(s: string): string {
  return s.trim().split('\n')[0] ?? '';
}

/** The job modes offered by "Autarch: Start Job", mechanic first (the default). */
export const jobModes = [
  { label: 'mechanic', mode: 'mechanic', detail: 'At most 5 files and 200 changed lines per patch, a smaller budget' },
  { label: 'genius', mode: 'genius', detail: 'No patch limits, a larger budget' },
];

/** The jobs that can be applied (they committed). */
export function applicableJobs(jobs: JobSummary[]): JobSummary[] {
  return jobs.filter((j) => (j.commits ?? []).length > 0);
}

/** The jobs that can be resumed: stopped, failed, or waiting for a review. */
export function resumableJobs(jobs: JobSummary[]): JobSummary[] {
  return jobs.filter((j) => j.status === 'Stopped' || j.status === 'Failed' || j.status === 'Waiting');
}

/** The escalations that wait for an answer, with their job. */
export function waitingEscalations(jobs: JobSummary[]): { job: JobSummary; escalation: EscalationView }[] {
  return jobs.flatMap((job) => (job.escalations ?? []).filter((e) => e.status === 'Pending').map((escalation) => ({ job, escalation })));
}
