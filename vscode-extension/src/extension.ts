// Entry point: one table of commands over a Ctx that owns the server.
import * as vscode from 'vscode';
import { Ctx } from './ctx';
import { CommandServerStatus, type ServerStatus } from './lspext.gen';
import { Panel } from './panel';

type Command = (ctx: Ctx) => Promise<void>;

/** Every command of the extension, by id (package.json contributes them). */
const commands: Record<string, Command> = {
  'autarch.showServerStatus': async (ctx) => {
    const st = await ctx.executeCommand<ServerStatus>(CommandServerStatus);
    ctx.status = st;
    await ctx.refreshStatus();
    void vscode.window.showInformationMessage(st.message);
  },
  'autarch.openLog': async (ctx) => {
    ctx.output.show(true);
  },
  'autarch.restartServer': async (ctx) => {
    await ctx.start();
    void vscode.window.showInformationMessage('Autarch server restarted.');
  },
  'autarch.setApiKey': async (ctx) => {
    const key = await vscode.window.showInputBox({
      title: 'Autarch: API key for the model endpoint',
      prompt: 'Stored in VS Code secret storage, never in settings.json. Leave empty to remove it.',
      password: true,
      ignoreFocusOut: true,
    });
    if (key === undefined) return;
    await ctx.setApiKey(key.trim());
    void vscode.window.showInformationMessage(key.trim() ? 'Autarch API key saved.' : 'Autarch API key removed.');
  },
};

export async function activate(ext: vscode.ExtensionContext): Promise<void> {
  const ctx = new Ctx(ext);
  ext.subscriptions.push(ctx);
  for (const [id, fn] of Object.entries(commands)) {
    ext.subscriptions.push(
      vscode.commands.registerCommand(id, async () => {
        try {
          await fn(ctx);
        } catch (err) {
          const choice = await vscode.window.showErrorMessage(`Autarch: ${err instanceof Error ? err.message : String(err)}`, 'Open Log');
          if (choice === 'Open Log') ctx.output.show(true);
        }
      }),
    );
  }
  ext.subscriptions.push(vscode.window.registerWebviewViewProvider(Panel.viewId, new Panel(ctx)));
  ext.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('autarch.serverPath')) void ctx.start();
      else if (e.affectsConfiguration('autarch')) void ctx.pushSettings();
    }),
  );
  await ctx.start();
}

export function deactivate(): void {}
