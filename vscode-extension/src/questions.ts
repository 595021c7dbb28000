// Pure logic of questions and approvals: building and checking answers, and
// reading the payloads of a workflow's stored pending items.
import { FreeText, MultiSelect, Ranked, SingleSelect, type Answer, type Approval, type PendingView, type Question } from './lspext.gen';

/** Why an answer does not fit its question, or undefined when it does. */
export function checkAnswer(q: Question, a: Answer | undefined): string | undefined {
  if (!a || !Array.isArray(a.values)) return `"${q.prompt}" has no answer.`;
  if (a.dismissed) return `"${q.prompt}" was dismissed.`;
  const options = q.options ?? [];
  const unknown = a.values.find((v) => typeof v !== 'string' || (q.type !== FreeText && !options.includes(v)));
  if (unknown !== undefined) return `"${String(unknown)}" is not an option of "${q.prompt}".`;
  switch (q.type) {
    case SingleSelect:
      return a.values.length === 1 ? undefined : `Pick one option for "${q.prompt}".`;
    case MultiSelect:
      // None picked is an answer too ("none of these").
      return new Set(a.values).size === a.values.length ? undefined : `An option was picked twice for "${q.prompt}".`;
    case Ranked: {
      const same = a.values.length === options.length && new Set(a.values).size === options.length;
      return same ? undefined : `Rank every option of "${q.prompt}".`;
    }
    case FreeText:
      return a.values.length === 1 && a.values[0].trim() ? undefined : `Write an answer to "${q.prompt}".`;
    default:
      return a.values.length ? undefined : `"${q.prompt}" has no answer.`;
  }
}

/** Checks every answer against its question (same order and count). */
export function checkAnswers(qs: Question[], answers: Answer[]): string | undefined {
  if (answers.length !== qs.length) return `${answers.length} answers for ${qs.length} questions.`;
  for (let i = 0; i < qs.length; i++) {
    const err = checkAnswer(qs[i], answers[i]);
    if (err) return err;
  }
  return undefined;
}

/** The Answer of a free_text question. */
export function textAnswer(text: string): Answer {
  return { values: [text.trim()] };
}

/** The Answer of a select or ranked question from the picked options, kept in the options' order except for ranked (pick order). */
export function pickAnswer(q: Question, picked: string[]): Answer {
  if (q.type === Ranked) return { values: [...picked] };
  const options = q.options ?? [];
  return { values: options.filter((o) => picked.includes(o)) };
}

/** The options not yet ranked; with one left, it ranks itself last. */
export function remainingRanked(q: Question, ranked: string[]): string[] {
  return (q.options ?? []).filter((o) => !ranked.includes(o));
}

/** True when the questions are one free_text question (e.g. "Reply to the scoping agent"). */
export function isSingleFreeText(qs: Question[]): boolean {
  return qs.length === 1 && qs[0].type === FreeText;
}

/** A pending item the server keeps for a waiting workflow, decoded. */
export type StoredPending =
  | { kind: 'questions'; id: string; stage: string; pendingKind: string; questions: Question[]; message?: string }
  | { kind: 'approval'; id: string; stage: string; pendingKind: string; approval: Approval }
  | { kind: 'unknown'; id: string; stage: string; pendingKind: string; text: string };

/**
 * Decodes a PendingView: kind "questions" carries Question[]; "reply"
 * carries {message} and is answered as one free_text question; every other
 * kind (scope, research, plan, extension, …) carries an Approval.
 */
export function decodePending(p: PendingView): StoredPending {
  const base = { id: p.id, stage: p.stage, pendingKind: p.kind };
  let payload: unknown;
  try {
    payload = p.payload ? JSON.parse(p.payload) : undefined;
  } catch {
    return { ...base, kind: 'unknown', text: p.payload };
  }
  if (p.kind === 'questions') {
    const qs = Array.isArray(payload) ? payload : isObject(payload) && Array.isArray(payload.questions) ? payload.questions : undefined;
    if (qs && qs.every(isQuestion)) return { ...base, kind: 'questions', questions: qs as Question[] };
  } else if (p.kind === 'reply') {
    const message = isObject(payload) && typeof payload.message === 'string' ? payload.message : '';
    return { ...base, kind: 'questions', message, questions: [{ type: FreeText, prompt: `Reply to the ${p.stage} agent` }] };
  } else if (isObject(payload) && typeof payload.title === 'string') {
    return { ...base, kind: 'approval', approval: { kind: p.kind, ...(payload as object) } as Approval };
  }
  return { ...base, kind: 'unknown', text: typeof payload === 'string' ? payload : p.payload };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isQuestion(v: unknown): boolean {
  return isObject(v) && typeof v.type === 'string' && typeof v.prompt === 'string' && (v.options === undefined || v.options === null || Array.isArray(v.options));
}
