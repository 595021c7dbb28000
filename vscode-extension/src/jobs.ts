// Jobs: one coding-team agent on its own ai/… branch (autarch job). The
// list the side panel shows (refreshed on autarch/jobEvent), its HTML with
// each job's buttons, the jobs' entries in the activity feed, and the
// choices the palette commands offer. Pure: requests go through an
// injected function; the buttons run the palette commands (jobCommands.ts).
//
// DOM contract (the end-to-end test asserts on it):
//   #jobs > li.job-item[data-id][data-status][data-mode]  .job-name .job-status .job-task
//     .job-branch  .job-commit[data-hash] (hash and message)  .job-tests[data-status]  .job-lint[data-status]
//     .job-escalation[data-status] (reason, severity, answer)  .job-usage (tokens/budget, cost)
//     .job-actions > button[data-action=job][data-op=resume|stop|apply|answer][data-id]
//       .job-resume .job-stop .job-apply .job-answer  (the buttons a job's state offers; see jobActions)
import { MethodJobs, type ActivityView, type EscalationView, type JobCheckView, type JobEvent, type JobRef, type JobSummary } from './lspext.gen';
import type { PendingItem } from './pending';
import { RefreshedList, type Request } from './refreshList';
import { escapeHtml } from './status';

/** An entry of the activity feed; a job's entries name the job. */
export interface FeedItem extends ActivityView {
  jobId?: string;
  /** The job's name, the entry's label. */
  job?: string;
  /** "escalation": a request_human_review waiting for, or given, an answer. */
  kind?: 'escalation';
}

interface LiveJobActivity {
  seq: number;
  item: FeedItem;
}

/** The live entries the list keeps (the latest ones) until a refresh brings them stored. */
const maxLive = 300;

/** The jobs list, refreshed (debounced) on every job event, and the jobs' live activity. */
export class JobList extends RefreshedList<JobSummary> {
  private live: LiveJobActivity[] = [];
  private seq = 0;

  constructor(
    request: Request,
    delay = 150,
    private readonly now: () => Date = () => new Date(),
  ) {
    super(request, MethodJobs, delay);
  }

  get jobs(): JobSummary[] {
    return this.items;
  }

  /** Takes a job event: tool calls and escalations feed the activity at once; the list refreshes soon. */
  onEvent(ev: JobEvent): void {
    if (!ev || typeof ev !== 'object' || typeof ev.jobId !== 'string') return;
    const item = this.liveItem(ev);
    if (item) {
      this.live.push({ seq: ++this.seq, item });
      if (this.live.length > maxLive) this.live.splice(0, this.live.length - maxLive);
      this.changed();
    } else if (ev.kind === 'tool_result' && ev.failed) {
      const match = [...this.live].reverse().find((a) => a.item.jobId === ev.jobId && !a.item.kind && (ev.toolCallId ? a.item.callId === ev.toolCallId : a.item.tool === ev.tool) && !a.item.failed);
      if (match) {
        match.item.failed = true;
        this.changed();
      }
    }
    this.scheduleRefresh();
  }

  private liveItem(ev: JobEvent): FeedItem | undefined {
    const base = { time: this.now().toISOString(), stage: 'job', failed: false, jobId: ev.jobId, job: this.find(ev.jobId)?.name ?? ev.jobId.slice(0, 8) };
    if (ev.kind === 'tool_call') return { ...base, tool: ev.tool ?? '', reason: ev.reason ?? '', callId: ev.toolCallId };
    if (ev.kind === 'escalation') return { ...base, kind: 'escalation', tool: 'escalation', reason: escalationWords(base.job, ev.status === 'Pending' ? 'open' : 'answered', ev.text ?? '') };
    return undefined;
  }

  /** Fetches the list; live entries that arrived before the request are in it now (stored). */
  override async refresh(): Promise<void> {
    const seqAtStart = this.seq;
    await super.refresh();
    if (this.error === undefined && this.live.some((a) => a.seq <= seqAtStart)) {
      this.live = this.live.filter((a) => a.seq > seqAtStart);
      this.changed();
    }
  }

  /** The jobs' activity, oldest first: each job's stored calls and escalations, then what arrived live since. */
  activity(): FeedItem[] {
    const stored = this.jobs.flatMap(storedActivity);
    const keys = new Set(stored.map((a) => `${a.jobId}/${a.callId}/${a.tool}`));
    const live = this.live.map((a) => a.item).filter((a) => !a.callId || !keys.has(`${a.jobId}/${a.callId}/${a.tool}`));
    return byTime([...stored, ...live]);
  }

  /** A job by id, id prefix or name. */
  find(ref: string): JobSummary | undefined {
    return this.jobs.find((j) => j.id === ref || j.name === ref) ?? this.jobs.find((j) => ref.length >= 4 && j.id.startsWith(ref));
  }
}

const e = escapeHtml;
const attr = (s: string | number | boolean | undefined): string => e(String(s ?? ''));

/** The side panel's jobs section: each job's commits, checks, escalations and usage (the list of runs lists them; "" when there are none). */
export function renderJobs(jobs: JobSummary[], error?: string): string {
  if (!jobs.length && !error) return '';
  const items = jobs.map(renderJob).join('\n');
  return `<h2>Job details <span class="count">${jobs.length}</span></h2>\n${error ? `<div class="error">${e(error)}</div>` : ''}<ul id="jobs">${items}</ul>`;
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
    renderActions(j) +
    `</li>`
  );
}

/** A button of a job row: what it runs (a palette command, with the job preselected). */
export type JobOp = 'resume' | 'stop' | 'apply' | 'answer';

/** The palette command each button runs; the job's id is its argument. */
export const jobOpCommands: Record<JobOp, string> = {
  resume: 'autarch.ui.resumeJob',
  stop: 'autarch.ui.stopJob',
  apply: 'autarch.ui.applyJob',
  answer: 'autarch.ui.answerJobReview',
};

/** The input box of Resume Job: the human's guidance for the job's agent (blank resumes without). */
export function guidancePrompt(j: JobSummary): { title: string; prompt: string; placeHolder: string } {
  const why = j.statusReason ? ` It ${j.status.toLowerCase()}: ${j.statusReason.length > 160 ? j.statusReason.slice(0, 159) + '…' : j.statusReason}` : '';
  return {
    title: `Autarch: Resume job ${j.name}`,
    prompt: `Guidance for the job's agent, read before it continues (leave empty to resume as it was).${why}`,
    placeHolder: 'e.g. Only change calc.go; run the tests before committing',
  };
}

/** The autarch.resumeJob argument: the job, with the guidance when there is some. */
export function resumeRef(j: JobSummary, guidance: string | undefined): JobRef {
  const g = guidance?.trim();
  return g ? { jobId: j.id, name: j.name, guidance: g } : { jobId: j.id, name: j.name };
}

/** Whether a job stopped because it used up its budget or iteration limit (resuming grants another). */
export function budgetExhausted(j: JobSummary): boolean {
  return j.status === 'Stopped' && /^(token budget reached|iteration limit reached)/.test(j.statusReason ?? '');
}

/**
 * The buttons a job's state offers: Answer review while a request_human_review waits, Stop while it
 * runs, Resume when stopped (by the user, a crash or its budget), failed, or waiting with nothing left
 * to answer, Apply once done with a commit.
 */
export function jobActions(j: JobSummary): JobOp[] {
  const ops: JobOp[] = [];
  const pending = (j.escalations ?? []).some((x) => x.status === 'Pending');
  if (pending) ops.push('answer');
  if (j.status === 'Running') ops.push('stop');
  if (j.status === 'Stopped' || j.status === 'Failed' || (j.status === 'Waiting' && !pending)) ops.push('resume');
  if (j.status === 'Done' && (j.commits ?? []).length > 0) ops.push('apply');
  return ops;
}

function renderActions(j: JobSummary): string {
  const ops = jobActions(j);
  if (!ops.length) return '';
  const button = (op: JobOp, label: string, title: string, secondary = false) =>
    `<button class="job-${op}${secondary ? ' secondary' : ''}" data-action="job" data-op="${op}" data-id="${attr(j.id)}" title="${attr(title)}">${e(label)}</button>`;
  const labels: Record<JobOp, string> = {
    answer: button('answer', 'Answer review…', 'The job asked for a human review: approve or decline, with feedback for the agent; then it continues.'),
    stop: button('stop', 'Stop', 'Stop the job; its work so far is kept and you can resume it later.', true),
    resume: budgetExhausted(j)
      ? button('resume', 'Resume with a new budget', `It used its budget; resuming grants it another ${j.mode} budget.`)
      : button('resume', 'Resume', 'Run the job again from where it stopped.'),
    apply: button('apply', 'Apply…', `Bring ${j.branch} into your folder: fast-forward, or one edit you can undo.`),
  };
  return `<div class="job-actions buttons">${ops.map((op) => labels[op]).join(' ')}</div>`;
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

/**
 * What an escalation entry of the feed says: what happened and, while it waits, what to do next
 * ("open": waits now; "asked": the question of one answered since; "answered": the answer).
 */
function escalationWords(job: string, state: 'open' | 'asked' | 'answered', text: string): string {
  if (state === 'answered') return `review answered (${text}); the job continues`;
  return `${job} asks for your review: ${text}${state === 'open' ? ` — answer it with the job's "Answer review…" button` : ''}`;
}

/** A job's stored calls and escalations as feed entries. */
function storedActivity(j: JobSummary): FeedItem[] {
  const label = { jobId: j.id, job: j.name };
  const calls: FeedItem[] = (j.activity ?? []).map((a) => ({ ...a, ...label }));
  const escalations: FeedItem[] = (j.escalations ?? []).flatMap((x) => {
    const entry = (time: string, state: 'open' | 'asked' | 'answered', text: string): FeedItem => ({ time, stage: 'job', tool: 'escalation', reason: escalationWords(j.name, state, text), failed: false, kind: 'escalation', ...label });
    const answered = x.status === 'Answered';
    const out: FeedItem[] = [];
    if (x.createdAt) out.push(entry(x.createdAt, answered ? 'asked' : 'open', x.reason));
    if (x.resolvedAt && answered) out.push(entry(x.resolvedAt, 'answered', `${x.approved ? 'approved' : 'declined'}${x.feedback ? `: ${x.feedback}` : ''}`));
    return out;
  });
  return [...calls, ...escalations];
}

const timeOf = (a: ActivityView): number => {
  const t = Date.parse(a.time);
  return Number.isNaN(t) ? Infinity : t;
};

/** Sorted by time, stably (entries of one time keep their order). */
function byTime<T extends ActivityView>(items: T[]): T[] {
  return items.map((item, i) => ({ item, i, t: timeOf(item) })).sort((a, b) => a.t - b.t || a.i - b.i).map((x) => x.item);
}

/**
 * The activity feed: a workflow's entries (kept in their order: a sub-agent's calls sit under their
 * dispatch call) merged by time with the jobs' entries.
 */
export function mergeActivity(workflow: ActivityView[], jobs: FeedItem[]): FeedItem[] {
  const out: FeedItem[] = [];
  let i = 0;
  let k = 0;
  while (i < workflow.length || k < jobs.length) {
    if (k >= jobs.length || (i < workflow.length && !(timeOf(jobs[k]) < timeOf(workflow[i])))) out.push(workflow[i++]);
    else out.push(jobs[k++]);
  }
  return out;
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

/** The jobs that can be stopped: running. */
export function stoppableJobs(jobs: JobSummary[]): JobSummary[] {
  return jobs.filter((j) => j.status === 'Running');
}

/**
 * The live approval (its pending id) through which the server is asking for an escalation right now,
 * if any: answering the escalation answers that request; without one the job waits stored
 * (autarch.answerEscalation records the answer and resumes it).
 */
export function liveEscalation(pending: PendingItem[], escalationId: string): string | undefined {
  return pending.find((p) => p.kind === 'approval' && p.approval.kind === 'escalation' && p.approval.escalationId === escalationId)?.id;
}

/** The escalations that wait for an answer, with their job. */
export function waitingEscalations(jobs: JobSummary[]): { job: JobSummary; escalation: EscalationView }[] {
  return jobs.flatMap((job) => (job.escalations ?? []).filter((e) => e.status === 'Pending').map((escalation) => ({ job, escalation })));
}
