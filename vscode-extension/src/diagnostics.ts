// Pure filtering and mapping of the editor's diagnostics for
// autarch/diagnostics (the agent's read_lints).
import type { DiagnosticItem, DiagnosticsParams, DiagnosticsResult } from './lspext.gen';

/** One diagnostic as VS Code has it, with a workspace-relative file. */
export interface RawDiagnostic {
  /** Workspace-relative path with forward slashes. */
  file: string;
  /** 0-based line and character. */
  line: number;
  character: number;
  /** vscode.DiagnosticSeverity: 0 Error, 1 Warning, 2 Information, 3 Hint. */
  severity: number;
  message: string;
  source?: string;
}

/** Normalizes a requested path: forward slashes, no "./" or trailing "/"; "" and "." mean everything. */
export function normalizePath(p: string): string {
  let s = p.replace(/\\/g, '/').trim();
  while (s.startsWith('./')) s = s.slice(2);
  s = s.replace(/\/+/g, '/').replace(/\/$/, '');
  return s === '.' ? '' : s;
}

/** True when file is one of paths or under one of them (empty paths: every file). */
export function matchesPaths(file: string, paths: readonly string[]): boolean {
  const wanted = paths.map(normalizePath);
  if (wanted.length === 0 || wanted.includes('')) return true;
  const f = normalizePath(file);
  return wanted.some((p) => f === p || f.startsWith(p + '/'));
}

export function severityName(s: number): 'error' | 'warning' | 'info' {
  return s === 0 ? 'error' : s === 1 ? 'warning' : 'info';
}

/**
 * The DiagnosticsResult for params: the raw diagnostics under the requested
 * paths, 1-based, sorted by file and position. Autarch's own diagnostics
 * (source "autarch": review comments the server published) are left out.
 */
export function diagnosticsResult(raw: readonly RawDiagnostic[], params: DiagnosticsParams | undefined): DiagnosticsResult {
  const paths = Array.isArray(params?.paths) ? params.paths.filter((p): p is string => typeof p === 'string') : [];
  const items: DiagnosticItem[] = raw
    .filter((d) => d.source !== 'autarch' && matchesPaths(d.file, paths))
    .map((d) => ({
      file: normalizePath(d.file),
      line: d.line + 1,
      column: d.character + 1,
      severity: severityName(d.severity),
      message: d.message,
      source: d.source ?? '',
    }));
  items.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line || a.column - b.column));
  return { diagnostics: items };
}
