// Entry point: the command table (commands.ts) over an App (app.ts) that
// owns the surfaces, over a Ctx (ctx.ts) that owns the server.
import * as vscode from 'vscode';
import { App } from './app';
import { commands } from './commands';
import { jobCommands } from './jobCommands';
import { fleetCommands } from './fleetCommands';
import { fleetConfigured, fleetConfiguredKey } from './config';
import { swarmCommands } from './swarmView';
import { revertCommands } from './revert';
import { Ctx } from './ctx';
import { commandEnabled, notRunningMessage, serverRunningKey } from './enablement';

export async function activate(ext: vscode.ExtensionContext): Promise<void> {
  const ctx = new Ctx(ext);
  ext.subscriptions.push(ctx);
  const app = new App(ctx, ext);
  ext.subscriptions.push(app);
  const syncEnablement = () => void vscode.commands.executeCommand('setContext', serverRunningKey, ctx.running);
  ext.subscriptions.push(ctx.onChange(syncEnablement));
  syncEnablement();
  // "Run in Background" shows (panel, palette, view title) only with a fleet configured.
  const syncFleet = () => void vscode.commands.executeCommand('setContext', fleetConfiguredKey, fleetConfigured((k) => vscode.workspace.getConfiguration('autarch').get(k)));
  syncFleet();
  for (const [id, fn] of Object.entries({ ...commands, ...jobCommands, ...fleetCommands, ...swarmCommands, ...revertCommands })) {
    ext.subscriptions.push(
      vscode.commands.registerCommand(id, async (...args: unknown[]) => {
        if (!commandEnabled(id, ctx.running ? 'running' : ctx.state)) {
          const choice = await vscode.window.showWarningMessage(`Autarch: ${notRunningMessage(ctx.state)}`, ...(ctx.state === 'restricted' ? ['Manage Workspace Trust'] : ['Restart Server', 'Show Log']));
          if (choice === 'Manage Workspace Trust') await vscode.commands.executeCommand('workbench.trust.manage');
          else if (choice === 'Restart Server') await vscode.commands.executeCommand('autarch.restartServer');
          else if (choice === 'Show Log') ctx.output.show(true);
          return;
        }
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
    vscode.workspace.onDidGrantWorkspaceTrust(() => void ctx.start()),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('autarch.serverPath')) void ctx.start();
      else if (e.affectsConfiguration('autarch')) void ctx.pushSettings();
      if (e.affectsConfiguration('autarch.fleet')) {
        syncFleet();
        app.panel.update();
      }
    }),
  );
  await ctx.start();
  if (ctx.state === 'restricted') {
    // The trust question: VS Code may open the folder in Restricted Mode without asking.
    void vscode.window
      .showInformationMessage(`Autarch: ${notRunningMessage('restricted')}`, 'Trust Folder…')
      .then((choice) => (choice === 'Trust Folder…' ? vscode.commands.executeCommand('workbench.trust.manage') : undefined));
  }
}

export function deactivate(): void {}
