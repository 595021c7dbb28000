// Pure rendering of a unified diff (an edit approval's detail, as the
// server writes it): recognised by its ---/+++/@@ header, counted, and
// rendered line by line, escaped.
import { escapeHtml } from './status';

/** Whether an approval's detail is a unified diff of one file. */
export function isUnifiedDiff(text: string | undefined): text is string {
  return !!text && /^--- \S.*\n\+\+\+ \S.*\n@@ /.test(text);
}

/** The file, added and removed lines of a unified diff. */
export function diffStat(diff: string): { path: string; additions: number; deletions: number } {
  const lines = diff.split('\n');
  const path = (lines[1] ?? '').replace(/^\+\+\+ (b\/)?/, '');
  let additions = 0;
  let deletions = 0;
  for (const l of lines.slice(2)) {
    if (l.startsWith('+')) additions++;
    else if (l.startsWith('-')) deletions++;
  }
  return { path, additions, deletions };
}

/** The diff as HTML: one escaped line per row, classed by its kind. */
export function renderDiff(diff: string): string {
  const rows = diff
    .replace(/\n$/, '')
    .split('\n')
    .map((l, i) => {
      const cls = i < 2 ? 'diff-file' : l.startsWith('@@') ? 'diff-hunk' : l.startsWith('+') ? 'diff-add' : l.startsWith('-') ? 'diff-del' : 'diff-ctx';
      return `<span class="${cls}">${escapeHtml(l) || ' '}</span>`;
    });
  // Each row is a block: no newline between them inside the <pre>.
  return `<pre class="diff" data-testid="approval-diff">${rows.join('')}</pre>`;
}

/** A one-line summary of a diff for a notification: "calc.go +3 −1". */
export function diffSummary(diff: string): string {
  const s = diffStat(diff);
  return `${s.path} +${s.additions} −${s.deletions}`;
}

/**
 * Text a model or an agent wrote, made inert for a notification. VS Code
 * turns `[label](command:…)` (or https:, file:) in a notification's message
 * into a link and opens it with commands allowed, so a tool call's reason
 * could carry a link that runs any command (a terminal's sendSequence) on
 * one click. A space between `]` and `(` keeps every word and breaks the
 * link (redteam s12 04).
 */
export function noLinks(text: string): string {
  return text.replaceAll('](', '] (');
}

/** An approval's notification text: its title, the diff's summary, the model's reason, with no link in it. */
export function approvalMessage(a: { title: string; detail?: string; reason?: string }): string {
  const what = isUnifiedDiff(a.detail) ? ` ${diffSummary(a.detail)}` : '';
  return noLinks(`Autarch: ${a.title}${what}${a.reason ? ` — Why: ${a.reason}` : ''}`);
}

/** The two sides of a one-file unified diff for a diff editor: each hunk's lines at their line numbers (blank lines between hunks). */
export function diffSides(diff: string): { path: string; before: string; after: string; created?: true } | undefined {
  if (!isUnifiedDiff(diff)) return undefined;
  const lines = diff.replace(/\n$/, '').split('\n');
  const oldName = lines[0].replace(/^--- (a\/)?/, '');
  const newName = lines[1].replace(/^\+\+\+ (b\/)?/, '');
  const created = oldName === '/dev/null';
  const before: string[] = [];
  const after: string[] = [];
  const pad = (side: string[], start: number) => {
    while (side.length < start - 1) side.push('');
  };
  for (const l of lines.slice(2)) {
    const h = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(l);
    if (h) {
      pad(before, Number(h[1]));
      pad(after, Number(h[2]));
    } else if (l.startsWith('-')) before.push(l.slice(1));
    else if (l.startsWith('+')) after.push(l.slice(1));
    else if (l.startsWith(' ') || l === '') {
      before.push(l.slice(1));
      after.push(l.slice(1));
    }
  }
  const path = newName === '/dev/null' ? oldName : newName;
  return created ? { path, before: '', after: after.join('\n'), created } : { path, before: before.join('\n'), after: after.join('\n') };
}

/** An approval notification's buttons: short, so that none is cut off; the other answers are behind "More…". */
export function approvalButtons(a: { allowAlways?: boolean; allowAbort?: boolean; kind?: string; title?: string }): string[] {
  return ['Approve', ...(a.allowAlways ? ['Always allow'] : []), 'Details', 'More…'];
}
