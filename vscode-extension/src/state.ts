// The workflows the side panel shows: the list, the selected workflow's
// detail, the live activity feed and the discussion. Pure (no 'vscode'):
// requests go through an injected function; refreshes are debounced.
import {
  MethodWorkflow,
  MethodWorkflows,
  EventDryRunPlan,
  type ActivityView,
  type DryRunPlanView,
  type MessageView,
  type ReviewView,
  type WorkflowDetail,
  type WorkflowEvent,
  type WorkflowRef,
  type WorkflowSummary,
} from './lspext.gen';

export type Request = <T>(method: string, params: unknown) => Promise<T>;

interface LiveActivity {
  seq: number;
  item: ActivityView;
  /** The model's id of the call, which its result carries too (a sub-agent's: prefixed by its dispatch call's). */
  callId?: string;
  /** The dispatch_subagent call a sub-agent's call is nested under. */
  parent?: string;
}

const maxFeed = 300;
/** The dry runs' plans the panel keeps (the latest ones). */
const maxDryRuns = 3;

/** A dry run's plan as the side panel shows it (a dry run is never listed: its workflow lives in a temporary store). */
export interface DryRunPlan {
  workflowId: string;
  plan: DryRunPlanView;
}

/** The key of a call in the feed: a sub-agent's call ids are its own, so they are qualified by the dispatch call's. */
function callKey(ev: WorkflowEvent): string | undefined {
  if (!ev.toolCallId) return undefined;
  return ev.parentToolCallId ? `${ev.parentToolCallId}/${ev.toolCallId}` : ev.toolCallId;
}

/** How many discussion messages are kept across a window reload. */
const maxKeptMessages = 100;

export class WorkflowState {
  workflows: WorkflowSummary[] = [];
  /** The selected workflow; "" is the discussion. */
  selected = '';
  detail: WorkflowDetail | undefined;
  detailError: string | undefined;
  listError: string | undefined;
  /** Messages of the discussion (autarch.discuss and its replies). */
  readonly discussion: MessageView[] = [];
  /** The user's discussion messages shown before the server echoed them. */
  private readonly unconfirmed: MessageView[] = [];
  /** The last review of the current branch (autarch.reviewBranch). */
  branchReview: ReviewView | undefined;
  /** The workflow of the last event (the status bar shows it). */
  lastEventWorkflow = '';
  /** The stage of the last event per workflow. */
  readonly lastStage = new Map<string, string>();
  private readonly live = new Map<string, LiveActivity[]>();
  /** Dry runs' plans by workflow id, oldest first. */
  private readonly dryRuns = new Map<string, DryRunPlanView>();
  private seq = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly listeners = new Set<() => void>();
  private refreshing: Promise<void> | undefined;
  private again = false;

  constructor(
    private readonly request: Request,
    private readonly debounceMs = 300,
    private readonly now: () => Date = () => new Date(),
  ) {}

  onChange(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private changed(): void {
    for (const fn of this.listeners) fn();
  }

  summary(id: string): WorkflowSummary | undefined {
    return this.workflows.find((w) => w.id === id);
  }

  /** Selects a workflow ("" for the discussion) and fetches it. */
  async select(id: string): Promise<void> {
    if (id !== this.selected) {
      this.selected = id;
      this.detail = undefined;
      this.detailError = undefined;
      this.changed();
    }
    await this.refresh();
  }

  /** Refreshes soon, once for a burst of calls. */
  scheduleRefresh(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.refresh().catch(() => undefined);
    }, this.debounceMs);
  }

  /** Fetches the list and the selected workflow now (a refresh during one runs again after it). */
  async refresh(): Promise<void> {
    if (this.refreshing) {
      this.again = true;
      return this.refreshing;
    }
    this.refreshing = this.fetch();
    try {
      await this.refreshing;
    } finally {
      this.refreshing = undefined;
    }
    if (this.again) {
      this.again = false;
      await this.refresh();
    }
  }

  private async fetch(): Promise<void> {
    const id = this.selected;
    const seqAtStart = this.seq;
    const [list, detail] = await Promise.allSettled([
      this.request<WorkflowSummary[] | null>(MethodWorkflows, {}),
      id ? this.request<WorkflowDetail>(MethodWorkflow, { workflowId: id } satisfies WorkflowRef) : Promise.resolve(undefined),
    ]);
    if (list.status === 'fulfilled') {
      this.workflows = list.value ?? [];
      this.listError = undefined;
    } else {
      this.listError = String(list.reason instanceof Error ? list.reason.message : list.reason);
    }
    if (id === this.selected) {
      if (detail.status === 'fulfilled') {
        this.detail = detail.value ?? undefined;
        this.detailError = undefined;
        // The detail's activity now holds what arrived before the request (sub-agents' calls too, which older servers did not store).
        if (id) this.live.set(id, (this.live.get(id) ?? []).filter((a) => a.seq > seqAtStart || a.parent));
      } else {
        this.detailError = String(detail.reason instanceof Error ? detail.reason.message : detail.reason);
      }
    }
    this.changed();
  }

  /** Takes a WorkflowEvent: feeds the activity and the discussion, and schedules a refresh. */
  onEvent(ev: WorkflowEvent): void {
    const id = ev.workflowId || '';
    if (id) this.lastEventWorkflow = id;
    if (ev.stage) this.lastStage.set(id, ev.stage);
    const s = this.summary(id);
    if (s && ev.kind === 'stage' && ev.stage) s.stage = ev.stage;
    if (ev.kind === 'tool_call') {
      const item: ActivityView = { time: this.now().toISOString(), stage: ev.stage ?? '', pulseId: ev.pulseId, tool: ev.tool ?? '', reason: ev.reason ?? '', failed: !!ev.failed };
      if (ev.parentToolCallId) item.subagent = ev.subagent || 'sub-agent';
      this.pushActivity(id, item, callKey(ev), ev.parentToolCallId);
    } else if (ev.kind === 'tool_result' && ev.failed) {
      const list = this.live.get(id) ?? [];
      // The result names its call; events without ids fall back to the latest unfailed call of the tool.
      const key = callKey(ev);
      const match = key
        ? list.find((a) => a.callId === key)
        : [...list].reverse().find((a) => a.item.tool === (ev.tool ?? '') && !a.item.failed);
      if (match) match.item.failed = true;
    } else if (ev.kind === EventDryRunPlan && id && ev.dryRun) {
      this.dryRuns.delete(id);
      this.dryRuns.set(id, ev.dryRun);
      for (const old of [...this.dryRuns.keys()].slice(0, Math.max(0, this.dryRuns.size - maxDryRuns))) this.dryRuns.delete(old);
    } else if (ev.kind === 'message' && !id) {
      // The server echoes the user's own messages (status "user"): the local copy is confirmed, not repeated.
      const role = ev.status || 'assistant';
      const text = ev.text ?? '';
      const local = role === 'user' ? this.unconfirmed.findIndex((m) => m.text.trim() === text.trim()) : -1;
      if (local >= 0) this.unconfirmed.splice(local, 1);
      else this.discussion.push({ role, stage: ev.stage || 'discussion', text });
    }
    this.changed();
    this.scheduleRefresh();
  }

  private pushActivity(id: string, item: ActivityView, callId?: string, parent?: string): void {
    const list = this.live.get(id) ?? [];
    list.push({ seq: ++this.seq, item, callId, parent });
    if (list.length > maxFeed) list.splice(0, list.length - maxFeed);
    this.live.set(id, list);
  }

  /**
   * The activity feed of a workflow ("" for work outside workflows): stored, then live (a call both stored
   * and live shows once). A sub-agent's calls go under their dispatch call, after its earlier ones (parallel
   * calls interleave); stored ones come in that order already.
   */
  activity(id: string): ActivityView[] {
    const stored = id && this.detail?.summary.id === id ? (this.detail.activity ?? []) : [];
    const feed: { item: ActivityView; key?: string; parent?: string }[] = stored.map((item) => ({
      item,
      key: item.callId && item.parentCallId ? `${item.parentCallId}/${item.callId}` : item.callId,
      parent: item.parentCallId || undefined,
    }));
    const storedKeys = new Set(feed.map((f) => f.key).filter((k) => k));
    for (const a of this.live.get(id) ?? []) {
      if (a.callId && storedKeys.has(a.callId)) continue;
      let at = -1;
      if (a.parent) for (let i = feed.length - 1; i >= 0 && at < 0; i--) if (feed[i].key === a.parent || feed[i].parent === a.parent) at = i;
      const entry = { item: a.item, key: a.callId, parent: a.parent };
      if (at >= 0) feed.splice(at + 1, 0, entry);
      else feed.push(entry);
    }
    return feed.map((f) => f.item);
  }

  /** The dry runs' plans, the latest first. */
  dryRunPlans(): DryRunPlan[] {
    return [...this.dryRuns].map(([workflowId, plan]) => ({ workflowId, plan })).reverse();
  }

  /** The discussion to keep across a window reload: its last messages (the reload notes left out). */
  keptDiscussion(): MessageView[] {
    return this.discussion.filter((m) => m.role !== 'note').slice(-maxKeptMessages);
  }

  /** Puts back the discussion an earlier window kept (keptDiscussion), with a note that the agent starts afresh. */
  restoreDiscussion(saved: unknown): void {
    if (!Array.isArray(saved) || !saved.length) return;
    const ok = saved.every((m) => typeof m === 'object' && m !== null && typeof m.role === 'string' && typeof m.text === 'string');
    if (!ok) return;
    const msgs = (saved as MessageView[]).slice(-maxKeptMessages).map((m) => ({ role: m.role, stage: typeof m.stage === 'string' ? m.stage : 'discussion', text: m.text }));
    this.discussion.unshift(
      ...msgs,
      { role: 'note', stage: 'discussion', text: 'The window was reloaded: the messages above are kept here, but the discussion agent starts afresh; repeat what it should know.' },
    );
    this.changed();
  }

  /** Records a message the user sent to the discussion. */
  addUserMessage(text: string): void {
    const m: MessageView = { role: 'user', stage: 'discussion', text };
    this.discussion.push(m);
    this.unconfirmed.push(m);
    this.changed();
  }

  setBranchReview(r: ReviewView | undefined): void {
    this.branchReview = r;
    this.changed();
  }

  /** The workflow the status bar shows: the last one with an event while active, else the latest active one. */
  activeWorkflow(): WorkflowSummary | undefined {
    const active = (w: WorkflowSummary | undefined) => !!w && (w.status === 'Active' || w.status === 'AwaitingUser');
    const last = this.summary(this.lastEventWorkflow);
    if (active(last)) return last;
    return [...this.workflows].filter(active).sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : 0))[0];
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.listeners.clear();
  }
}
