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
