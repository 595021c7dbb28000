// Entry point: the command table (commands.ts) over an App (app.ts) that
// owns the surfaces, over a Ctx (ctx.ts) that owns the server.
import * as vscode from 'vscode';
import { App } from './app';
import { commands } from './commands';
import { Ctx } from './ctx';

export async function activate(ext: vscode.ExtensionContext): Promise<void> {
  const ctx = new Ctx(ext);
  ext.subscriptions.push(ctx);
  const app = new App(ctx, ext);
  ext.subscriptions.push(app);
  for (const [id, fn] of Object.entries(commands)) {
    ext.subscriptions.push(
      vscode.commands.registerCommand(id, async (...args: unknown[]) => {
        try {
          await fn(app, ...args);
        } catch (err) {
          const choice = await vscode.window.showErrorMessage(`Autarch: ${err instanceof Error ? err.message : String(err)}`, 'Show Log');
          if (choice === 'Show Log') ctx.output.show(true);
        }
      }),
    );
  }
  ext.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('autarch.serverPath')) void ctx.start();
      else if (e.affectsConfiguration('autarch')) void ctx.pushSettings();
    }),
  );
  await ctx.start();
}

export function deactivate(): void {}
