// Pure mapping of review comments to Comments API threads and decorations.
import type { CommentView, ReviewView, WorkflowSummary } from './lspext.gen';

export type Severity = 'high' | 'medium' | 'low';

/** The severity of a comment, normalized (unknown values count as low). */
export function severityOf(c: Pick<CommentView, 'severity'>): Severity {
  const s = (c.severity || '').trim().toLowerCase();
  return s === 'high' || s === 'critical' ? 'high' : s === 'medium' ? 'medium' : 'low';
}

function capitalize(s: string): string {
  return s ? s[0].toUpperCase() + s.slice(1) : s;
}

/** The thread label, e.g. "High · bug · new". */
export function threadLabel(c: CommentView): string {
  const parts = [capitalize(severityOf(c)), (c.category || '').trim() || 'general', c.preExisting ? 'pre-existing' : 'new'];
  return parts.join(' · ');
}

/** Where a comment is: "line", "file" or "review" (no file). */
export function commentPlace(c: CommentView): 'line' | 'file' | 'review' {
  if (!c.filePath) return 'review';
  return c.startLine && c.startLine > 0 ? 'line' : 'file';
}

/** The 0-based line range of a comment's thread (file comments: the first line), or undefined for review-level comments. */
export function commentRange(c: CommentView): { start: number; end: number } | undefined {
  switch (commentPlace(c)) {
    case 'review':
      return undefined;
    case 'file':
      return { start: 0, end: 0 };
    default: {
      const start = (c.startLine as number) - 1;
      const end = Math.max(start, (c.endLine && c.endLine > 0 ? c.endLine : (c.startLine as number)) - 1);
      return { start, end };
    }
  }
}

/** A code fence longer than any run of backticks in code. */
export function fenced(code: string, lang = ''): string {
  const longest = Math.max(0, ...(code.match(/`+/g) ?? []).map((r) => r.length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}${lang}\n${code.replace(/\n$/, '')}\n${fence}`;
}

/** Escapes Markdown punctuation in text that is not meant as Markdown. */
export function escapeMarkdown(s: string): string {
  return s.replace(/([\\`*_{}[\]()#+\-.!|<>])/g, '\\$1');
}

/** The comment's body (Markdown): severity, category, new or pre-existing, description and the suggestion as code. */
export function commentBody(c: CommentView): string {
  const lines = [`**${capitalize(severityOf(c))}** · ${escapeMarkdown(c.category || 'general')} · ${c.preExisting ? 'pre-existing' : 'new'}`, '', c.description || ''];
  if (c.suggestion && c.suggestion.trim()) lines.push('', '**Suggestion:**', '', fenced(c.suggestion));
  return lines.join('\n');
}

/** A signature of the comments: equal signatures need no thread update. */
export function commentsSignature(comments: readonly CommentView[]): string {
  return JSON.stringify(comments.map((c) => [c.id, c.filePath, c.startLine, c.endLine, c.severity, c.category, c.description, c.suggestion, c.preExisting, c.uri]));
}

/** Whether a comment anchors to the user's file (not yet: to the reviewed commit's copy). */
export function onWorkspaceFile(c: CommentView): boolean {
  return !c.uri || c.uri.startsWith('file:');
}

/** Comments grouped by file then severity, as 0-based line ranges (for gutter decorations of the user's files). */
export function decorationRanges(comments: readonly CommentView[]): Map<string, Map<Severity, { start: number; end: number }[]>> {
  const out = new Map<string, Map<Severity, { start: number; end: number }[]>>();
  for (const c of comments) {
    const r = commentRange(c);
    if (!r || !c.filePath || !onWorkspaceFile(c)) continue;
    const file = c.filePath.replace(/\\/g, '/').replace(/^\.\//, '');
    let bySev = out.get(file);
    if (!bySev) out.set(file, (bySev = new Map()));
    const sev = severityOf(c);
    const list = bySev.get(sev) ?? [];
    list.push(r);
    bySev.set(sev, list);
  }
  return out;
}

/** The one-line summary of a review for messages. */
export function reviewSummaryLine(r: ReviewView): string {
  const n = r.comments?.length ?? 0;
  const rec = r.recommendation ? r.recommendation.replace(/_/g, ' ') : r.status || 'in progress';
  return `Review ${r.base ? `against ${r.base}` : ''}: ${rec} — ${n} comment${n === 1 ? '' : 's'}.`.replace(/ +:/, ':');
}

/** How many workflows the extension looks through for a review to restore (as the server does). */
export const restoreScan = 20;

/**
 * The workflows whose review may be restored after a reload, most recent
 * first: those not abandoned (the server shows the same review's Problems).
 */
export function restoreCandidates(list: readonly Pick<WorkflowSummary, 'id' | 'status' | 'updatedAt'>[]): string[] {
  return [...list]
    .sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : 0))
    .slice(0, restoreScan)
    .filter((w) => w.status !== 'Abandoned')
    .map((w) => w.id);
}

/**
 * The inline threads to show for the review the panel has: its comments,
 * none for a review without comments (a later review that approves, e.g.
 * after a pulse was redone, clears the earlier review's threads, as the
 * server clears its Problems); undefined (keep what is shown) when no review
 * is known.
 */
export function threadsToShow(r: Pick<ReviewView, 'comments'> | null | undefined): readonly CommentView[] | undefined {
  return r ? (r.comments ?? []) : undefined;
}
