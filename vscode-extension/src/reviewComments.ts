// Inline review: one Comments API thread per line or file comment, and
// gutter decorations by severity. Review comments also arrive from the
// server as diagnostics (source "autarch"); the language client shows
// those in Problems, so nothing here duplicates them.
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { CommentView } from './lspext.gen';
import { gitScheme, labelGitUri } from './picks';
import { commentBody, commentRange, commentsSignature, decorationRanges, threadLabel, type Severity } from './review';

const rulerColors: Record<Severity, string> = { high: 'editorError.foreground', medium: 'editorWarning.foreground', low: 'editorInfo.foreground' };

export class ReviewComments implements vscode.Disposable {
  private readonly controller = vscode.comments.createCommentController('autarch-review', 'Autarch Review');
  private threads: vscode.CommentThread[] = [];
  private signature = '';
  private ranges = new Map<string, Map<Severity, { start: number; end: number }[]>>();
  private readonly decorations: Record<Severity, vscode.TextEditorDecorationType>;
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(extensionUri: vscode.Uri) {
    const deco = (sev: Severity) =>
      vscode.window.createTextEditorDecorationType({
        gutterIconPath: vscode.Uri.joinPath(extensionUri, 'media', `review-${sev}.svg`),
        gutterIconSize: 'contain',
        overviewRulerColor: new vscode.ThemeColor(rulerColors[sev]),
        overviewRulerLane: vscode.OverviewRulerLane.Right,
      });
    this.decorations = { high: deco('high'), medium: deco('medium'), low: deco('low') };
    this.subscriptions.push(vscode.window.onDidChangeVisibleTextEditors((eds) => eds.forEach((ed) => this.decorate(ed))));
  }

  /** How many threads are shown. */
  get size(): number {
    return this.threads.length;
  }

  /** Replaces the threads with these comments (nothing happens when they did not change). */
  show(comments: readonly CommentView[]): void {
    const sig = commentsSignature(comments);
    if (sig === this.signature) return;
    this.signature = sig;
    for (const t of this.threads) t.dispose();
    this.threads = [];
    for (const c of comments) {
      const r = commentRange(c);
      if (!r || !c.filePath) continue;
      // The server anchors a comment to the user's file once it holds the
      // reviewed content, else to the reviewed commit's copy (autarch-git:).
      const uri = c.uri ? reviewUri(vscode.Uri.parse(c.uri)) : resolveWorkspaceFile(c.filePath);
      if (!uri) continue;
      const body = new vscode.MarkdownString(commentBody(c));
      body.supportHtml = false;
      const comment: vscode.Comment = { body, mode: vscode.CommentMode.Preview, author: { name: 'Autarch review' }, contextValue: 'autarch-review' };
      const thread = this.controller.createCommentThread(uri, new vscode.Range(r.start, 0, r.end, 0), [comment]);
      thread.label = threadLabel(c);
      thread.canReply = false;
      thread.contextValue = 'autarch-review';
      thread.collapsibleState = vscode.CommentThreadCollapsibleState.Collapsed;
      this.threads.push(thread);
    }
    this.ranges = decorationRanges(comments);
    for (const ed of vscode.window.visibleTextEditors) this.decorate(ed);
  }

  /** Removes every thread and decoration. */
  clear(): void {
    this.show([]);
  }

  private decorate(ed: vscode.TextEditor): void {
    if (ed.document.uri.scheme !== 'file') return;
    const rel = workspaceRelative(ed.document.uri);
    const bySev = rel !== undefined ? this.ranges.get(rel) : undefined;
    for (const sev of ['high', 'medium', 'low'] as const) {
      const rs = (bySev?.get(sev) ?? []).map((r) => new vscode.Range(r.start, 0, r.end, 0));
      ed.setDecorations(this.decorations[sev], rs);
    }
  }

  dispose(): void {
    for (const t of this.threads) t.dispose();
    for (const d of Object.values(this.decorations)) d.dispose();
    for (const s of this.subscriptions) s.dispose();
    this.controller.dispose();
  }
}

/** Where a review's comment or diagnostic shows: a file of an unapplied branch (autarch-git) under a path that names it (labelGitUri). */
export function reviewUri(uri: vscode.Uri): vscode.Uri {
  return uri.scheme === gitScheme ? uri.with(labelGitUri(uri.path, uri.query)) : uri;
}

/** The workspace file of a workspace-relative path: the first folder that has it, else the first folder. */
export function resolveWorkspaceFile(rel: string): vscode.Uri | undefined {
  const folders = vscode.workspace.workspaceFolders ?? [];
  if (!folders.length) return path.isAbsolute(rel) ? vscode.Uri.file(rel) : undefined;
  if (path.isAbsolute(rel)) return vscode.Uri.file(rel);
  const parts = rel.replace(/\\/g, '/').split('/').filter(Boolean);
  for (const f of folders) {
    const uri = vscode.Uri.joinPath(f.uri, ...parts);
    if (existsSync(uri.fsPath)) return uri;
  }
  return vscode.Uri.joinPath(folders[0].uri, ...parts);
}

/** The path of a file relative to its workspace folder, with forward slashes. */
export function workspaceRelative(uri: vscode.Uri): string | undefined {
  const folder = vscode.workspace.getWorkspaceFolder(uri);
  if (!folder) return undefined;
  return path.relative(folder.uri.fsPath, uri.fsPath).split(path.sep).join('/');
}
