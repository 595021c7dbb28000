// The pending store: the server's open autarch/askQuestions and
// autarch/approve requests. A request resolves only when the user answers
// (from a QuickPick, a notification or the side panel); closing a prompt
// leaves the item here, shown in the panel, until it is answered.
import type { Answer, Approval, AskQuestionsParams, AskQuestionsResult, Question, Verdict } from './lspext.gen';
import { checkAnswers } from './questions';

export interface PendingQuestions {
  id: string;
  kind: 'questions';
  workflowId?: string;
  title?: string;
  questions: Question[];
  /** Answers given so far in a prompt the user then closed (pre-fills the panel). */
  draft: (Answer | undefined)[];
  createdAt: number;
}

export interface PendingApproval {
  id: string;
  kind: 'approval';
  workflowId?: string;
  approval: Approval;
  createdAt: number;
}

export type PendingItem = PendingQuestions | PendingApproval;

interface Entry {
  item: PendingItem;
  resolve: (v: AskQuestionsResult | Verdict) => void;
  reject: (err: Error) => void;
}

/** Decisions a user can give an approval (never "dismissed": closing a prompt is no answer). */
const decisions = new Set(['approve', 'reject', 'always', 'abort']);

export class PendingStore {
  private readonly entries = new Map<string, Entry>();
  private readonly listeners = new Set<() => void>();
  private seq = 0;

  constructor(private readonly now: () => number = Date.now) {}

  onChange(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private changed(): void {
    for (const fn of this.listeners) fn();
  }

  private nextId(prefix: string): string {
    this.seq++;
    return `${prefix}-${this.seq}`;
  }

  /** Adds questions; the promise settles when they are answered (or the item is dropped). */
  addQuestions(p: AskQuestionsParams): { id: string; result: Promise<AskQuestionsResult> } {
    const id = this.nextId('q');
    const item: PendingQuestions = {
      id,
      kind: 'questions',
      workflowId: p.workflowId || undefined,
      title: p.title || undefined,
      questions: p.questions ?? [],
      draft: (p.questions ?? []).map(() => undefined),
      createdAt: this.now(),
    };
    const result = new Promise<AskQuestionsResult>((resolve, reject) => {
      this.entries.set(id, { item, resolve: resolve as Entry['resolve'], reject });
    });
    this.changed();
    return { id, result };
  }

  /** Adds an approval; the promise settles when the user decides (or the item is dropped). */
  addApproval(a: Approval): { id: string; result: Promise<Verdict> } {
    const id = this.nextId('a');
    const item: PendingApproval = { id, kind: 'approval', workflowId: a.workflowId || undefined, approval: a, createdAt: this.now() };
    const result = new Promise<Verdict>((resolve, reject) => {
      this.entries.set(id, { item, resolve: resolve as Entry['resolve'], reject });
    });
    this.changed();
    return { id, result };
  }

  get(id: string): PendingItem | undefined {
    return this.entries.get(id)?.item;
  }

  /** Open items, oldest first, optionally of one kind. */
  list(kind?: PendingItem['kind']): PendingItem[] {
    return [...this.entries.values()].map((e) => e.item).filter((i) => !kind || i.kind === kind);
  }

  questions(): PendingQuestions[] {
    return this.list('questions') as PendingQuestions[];
  }

  approvals(): PendingApproval[] {
    return this.list('approval') as PendingApproval[];
  }

  get size(): number {
    return this.entries.size;
  }

  /** Remembers a partial answer (from a closed prompt) for the panel. */
  setDraft(id: string, index: number, answer: Answer): void {
    const item = this.entries.get(id)?.item;
    if (item?.kind !== 'questions' || index < 0 || index >= item.questions.length) return;
    item.draft[index] = answer;
    this.changed();
  }

  /**
   * Answers questions. Returns an error message (and keeps the item) when
   * the answers do not fit, or when the item is gone (answered elsewhere).
   */
  answer(id: string, answers: Answer[]): string | undefined {
    const e = this.entries.get(id);
    if (!e || e.item.kind !== 'questions') return 'These questions were already answered.';
    const err = checkAnswers(e.item.questions, answers);
    if (err) return err;
    this.entries.delete(id);
    e.resolve({ answers: answers.map((a) => ({ values: [...a.values] })) });
    this.changed();
    return undefined;
  }

  /** Decides an approval; false when it is gone or the decision is not one. */
  decide(id: string, verdict: Verdict): boolean {
    const e = this.entries.get(id);
    if (!e || e.item.kind !== 'approval' || !decisions.has(verdict.decision)) return false;
    if (verdict.decision === 'always' && !e.item.approval.allowAlways) return false;
    if (verdict.decision === 'abort' && !e.item.approval.allowAbort) return false;
    this.entries.delete(id);
    const v: Verdict = { decision: verdict.decision };
    const fb = verdict.feedback?.trim();
    if (fb) v.feedback = fb;
    e.resolve(v);
    this.changed();
    return true;
  }

  /** Drops an item whose request the server cancelled or whose connection ended. */
  drop(id: string, reason = 'cancelled'): void {
    const e = this.entries.get(id);
    if (!e) return;
    this.entries.delete(id);
    e.reject(new Error(reason));
    this.changed();
  }

  /** Drops a workflow's items (a dry run ended: nothing can answer them any more); returns how many. */
  dropWorkflow(workflowId: string, reason: string): number {
    const ids = [...this.entries.values()].filter((e) => e.item.workflowId === workflowId).map((e) => e.item.id);
    for (const id of ids) this.drop(id, reason);
    return ids.length;
  }

  /** Drops every item (the server connection ended). */
  clear(reason = 'the server connection ended'): void {
    if (!this.entries.size) return;
    const all = [...this.entries.values()];
    this.entries.clear();
    for (const e of all) e.reject(new Error(reason));
    this.changed();
  }
}
