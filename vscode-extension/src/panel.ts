// The side panel: a webview view that shows the server's status.
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import type { Ctx } from './ctx';
import { renderStatus } from './status';

/** The commands the panel's buttons may run. */
const panelCommands = new Set(['autarch.showServerStatus', 'autarch.setApiKey', 'autarch.openLog']);

export class Panel implements vscode.WebviewViewProvider {
  static readonly viewId = 'autarch.panel';
  private view: vscode.WebviewView | undefined;

  constructor(private readonly ctx: Ctx) {
    ctx.onChange(() => this.render());
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    view.webview.options = { enableScripts: true };
    view.webview.onDidReceiveMessage((msg: { command?: string }) => {
      if (msg.command && panelCommands.has(msg.command)) void vscode.commands.executeCommand(msg.command);
    });
    view.onDidChangeVisibility(() => {
      if (view.visible) void this.ctx.refreshStatus().catch(() => undefined);
    });
    this.render();
  }

  private render(): void {
    if (!this.view) return;
    const nonce = randomBytes(16).toString('base64url');
    const body = renderStatus(this.ctx.state, this.ctx.status, this.ctx.lastError);
    this.view.webview.html = `<!DOCTYPE html><html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-${nonce}';">
<style>body{font-family:var(--vscode-font-family);color:var(--vscode-foreground)} .error{color:var(--vscode-errorForeground)} code{font-family:var(--vscode-editor-font-family)} button{color:var(--vscode-button-foreground);background:var(--vscode-button-background);border:none;padding:4px 10px;margin:2px 0;cursor:pointer} button:hover{background:var(--vscode-button-hoverBackground)}</style>
</head><body>${body}
<script nonce="${nonce}">const vscode=acquireVsCodeApi();document.querySelectorAll('button[data-command]').forEach(b=>b.addEventListener('click',()=>vscode.postMessage({command:b.dataset.command})));</script>
</body></html>`;
  }
}
