// Pure helpers of the palette commands: QuickPick items for workflows and
// search hits, the autarch-git URIs of diff views and the composer's target.
import type { ApplyWorkflowResult, PulseDiff, PulseDiffFile, SearchHit, WorkflowSummary } from './lspext.gen';
import type { PendingItem, PendingQuestions } from './pending';
import { isSingleFreeText } from './questions';

export const gitScheme = 'autarch-git';

/** The query of an autarch-git URI for a file at a commit. */
export function gitQuery(commit: string): string {
  return `commit=${encodeURIComponent(commit)}`;
}

/** The commit and workspace-relative path of an autarch-git URI's path and query (a labelled one's file name restored). */
export function parseGitUri(path: string, query: string): { commit: string; path: string } | undefined {
  const m = /(?:^|&)commit=([^&]*)/.exec(query);
  if (!m) return undefined;
  const name = /(?:^|&)name=([^&]*)/.exec(query)?.[1];
  let rel = path.replace(/^\/+/, '');
  if (name) rel = rel.replace(/[^/]*$/, decodeURIComponent(name));
  return { commit: decodeURIComponent(m[1]), path: rel };
}

/**
 * The path and query of a review's autarch-git URI (a file at the reviewed commit of an unapplied branch)
 * under a file name that says so, "calc (review abcdef12).go" (its extension kept for the language): its
 * tab and its Problems entry never read like the user's file. Other URIs are returned as they are.
 */
export function labelGitUri(path: string, query: string): { path: string; query: string } {
  const m = /(?:^|&)commit=([^&]*)/.exec(query);
  if (!m || /(?:^|&)name=/.test(query)) return { path, query };
  const rel = path.replace(/^\/+/, '');
  const base = rel.slice(rel.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  const [stem, ext] = dot > 0 ? [base.slice(0, dot), base.slice(dot)] : [base, ''];
  const label = `${stem} (review ${decodeURIComponent(m[1]).slice(0, 8)})${ext}`;
  return { path: `/${rel.slice(0, rel.length - base.length)}${label}`, query: `${query}&name=${encodeURIComponent(base)}` };
}

export interface DiffSide {
  commit: string;
  path: string;
}

export interface DiffPair {
  /** The file in the workspace (the label of the change). */
  path: string;
  left: DiffSide;
  right: DiffSide;
  title: string;
  status: string;
}

function kind(f: PulseDiffFile): 'added' | 'deleted' | 'renamed' | 'modified' {
  const s = (f.status || '').toLowerCase();
  if (s === 'a' || s.startsWith('add') || s === 'new') return 'added';
  if (s === 'd' || s.startsWith('delete') || s === 'removed') return 'deleted';
  if (s === 'r' || s.startsWith('rename') || (f.oldPath && f.oldPath !== f.path)) return 'renamed';
  return 'modified';
}

/** One diff view per changed file: old side at base (oldPath for renames), new side at head. */
export function diffPairs(d: PulseDiff): DiffPair[] {
  return (d.files ?? []).map((f) => {
    const k = kind(f);
    const oldPath = f.oldPath || f.path;
    const suffix = k === 'added' ? ' (added)' : k === 'deleted' ? ' (deleted)' : k === 'renamed' ? ` (renamed from ${oldPath})` : '';
    return {
      path: f.path,
      left: { commit: d.base, path: oldPath },
      right: { commit: d.head, path: f.path },
      title: `${f.path}${suffix} · ${d.title || `${d.base.slice(0, 8)}..${d.head.slice(0, 8)}`}`,
      status: k,
    };
  });
}

/** "path:start-end" for a search hit. */
export function hitLabel(h: SearchHit): string {
  return h.end_line && h.end_line !== h.start_line ? `${h.file_path}:${h.start_line}-${h.end_line}` : `${h.file_path}:${h.start_line}`;
}

/** The snippet on one line, shortened. */
export function hitDetail(h: SearchHit, max = 160): string {
  const s = (h.snippet || '').replace(/\s+/g, ' ').trim();
  return s.length > max ? s.slice(0, max - 1) + '…' : s;
}

export type WorkflowFilter = 'stop' | 'resume' | 'any';

/** Workflows for a pick: the ones the action fits first, newest first within. */
export function workflowsFor(list: readonly WorkflowSummary[], filter: WorkflowFilter): WorkflowSummary[] {
  const fits = (w: WorkflowSummary) =>
    filter === 'stop' ? w.status === 'Active' || w.status === 'AwaitingUser' : filter === 'resume' ? ['Stopped', 'Halted', 'Failed', 'AwaitingUser'].includes(w.status) : true;
  const byTime = (a: WorkflowSummary, b: WorkflowSummary) => (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : 0);
  const fitting = list.filter(fits).sort(byTime);
  return fitting.length ? fitting : [...list].sort(byTime);
}

/** What the panel's message box answers: a pending single free-text question (the selected workflow's first, then one outside workflows, then any), else nothing (the message goes to the discussion). */
export function composerTarget(pending: readonly PendingItem[], selected: string): PendingQuestions | undefined {
  const free = pending.filter((p): p is PendingQuestions => p.kind === 'questions' && isSingleFreeText(p.questions));
  return (selected ? free.find((p) => p.workflowId === selected) : undefined) ?? free.find((p) => !p.workflowId) ?? free[0];
}

/**
 * The message box's hint: what Send does. An answer (live or stored) names
 * its question; otherwise Send asks the discussion, and with a workflow
 * selected the hint says so, since the message does not go to the workflow.
 */
export function composerHint(h: { answer?: string; workflow?: string; selected?: string }): string {
  if (h.answer !== undefined) return `Send answers: ${h.answer}${h.workflow ? ` (${h.workflow})` : ''}`;
  if (h.selected) return `Send asks the discussion about the code, not ${h.selected}`;
  return 'Send goes to the discussion';
}

/** The notification of an applied (or refused) workflow: the server's message, with the file count only when it has no message. */
export function applyMessage(res: ApplyWorkflowResult | undefined): string {
  if (res?.message) return `Autarch: ${res.message}`;
  const n = res?.files?.length ?? 0;
  return `Autarch: ${res?.applied ? 'applied' : 'not applied'}${n ? ` (${n} file${n === 1 ? '' : 's'})` : ''}`;
}

/** One step of undoing an applied edit: remove a file the apply created, or restore a file as it is at a commit. */
export type UndoStep = { remove: string } | { restore: DiffSide };

/** How to undo an edit that applied these files of a diff: created files are removed, the others restored from the diff's base. */
export function undoSteps(d: PulseDiff, applied: readonly string[]): UndoStep[] {
  const done = new Set(applied);
  const steps: UndoStep[] = [];
  for (const f of d.files ?? []) {
    if (!done.has(f.path)) continue;
    const k = kind(f);
    if (k === 'added') steps.push({ remove: f.path });
    else if (k === 'renamed') steps.push({ remove: f.path }, { restore: { commit: d.base, path: f.oldPath || f.path } });
    else steps.push({ restore: { commit: d.base, path: f.path } });
  }
  return steps;
}
