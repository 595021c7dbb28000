// The extension's context: the language client and its lifecycle (start,
// restart on death, settings and the API key pushed to the server).
import { accessSync, chmodSync, constants } from 'node:fs';
import * as vscode from 'vscode';
import {
  CloseAction,
  ErrorAction,
  LanguageClient,
  State,
  type CloseHandlerResult,
  type ErrorHandlerResult,
  type LanguageClientOptions,
  type ServerOptions,
  type StaticFeature,
} from 'vscode-languageclient/node';
import { RestartBudget, serverPath, settingsFrom } from './config';
import { notRunningMessage } from './enablement';
import { reviewUri } from './reviewComments';
import { MethodProject, MethodSetAPIKey, MethodStatus, MethodStatusChanged, type ProjectState, type ServerStatus, type SetAPIKeyParams, type Settings } from './lspext.gen';
import type { ServerState } from './status';

const secretKey = 'autarch.apiKey';

/** What this client implements of the server's custom requests. */
export const autarchCapabilities = { questions: true, approvals: true, diagnostics: true };

/** Declares capabilities.experimental.autarch in initialize. */
const autarchFeature: StaticFeature = {
  fillClientCapabilities(caps) {
    const experimental = (caps.experimental ?? {}) as Record<string, unknown>;
    caps.experimental = { ...experimental, autarch: { ...autarchCapabilities } };
  },
  initialize() {},
  getState: () => ({ kind: 'static' }),
  clear() {},
};

type Handler = (params: any, token: vscode.CancellationToken) => unknown;

/** Ctx owns the running server and tells listeners about its state. */
export class Ctx implements vscode.Disposable {
  readonly output: vscode.OutputChannel;
  private client: LanguageClient | undefined;
  private readonly budget = new RestartBudget();
  private readonly listeners = new Set<() => void>();
  private readonly stopListeners = new Set<() => void>();
  private readonly requestHandlers = new Map<string, Handler>();
  private readonly notificationHandlers = new Map<string, (params: any) => void>();
  state: ServerState = 'stopped';
  status: ServerStatus | undefined;
  /** The first folder's MCP servers and project rules, fetched with the status. */
  project: ProjectState | undefined;
  lastError: string | undefined;

  constructor(private readonly ext: vscode.ExtensionContext) {
    this.output = vscode.window.createOutputChannel('Autarch');
  }

  /** Registers a listener for state and status changes. */
  onChange(fn: () => void): vscode.Disposable {
    this.listeners.add(fn);
    return new vscode.Disposable(() => this.listeners.delete(fn));
  }

  /** Registers a listener called when a server connection ends (stop or restart). */
  onStop(fn: () => void): vscode.Disposable {
    this.stopListeners.add(fn);
    return new vscode.Disposable(() => this.stopListeners.delete(fn));
  }

  /** Handles a server → client request on every client this Ctx starts. */
  handleRequest<P, R>(method: string, fn: (params: P, token: vscode.CancellationToken) => R | Promise<R>): void {
    this.requestHandlers.set(method, fn as Handler);
    this.client?.onRequest(method, fn as Handler);
  }

  /** Handles a server → client notification on every client this Ctx starts. */
  handleNotification<P>(method: string, fn: (params: P) => void): void {
    this.notificationHandlers.set(method, fn as (params: unknown) => void);
    this.client?.onNotification(method, fn as (params: unknown) => void);
  }

  get running(): boolean {
    return !!this.client && this.client.state === State.Running;
  }

  private stopped(): void {
    for (const fn of this.stopListeners) fn();
  }

  private changed(): void {
    for (const fn of this.listeners) fn();
  }

  private config(): vscode.WorkspaceConfiguration {
    return vscode.workspace.getConfiguration('autarch');
  }

  /** The settings sent as initializationOptions and in didChangeConfiguration: never the API key. */
  settings(): Settings {
    return settingsFrom((k) => this.config().get(k));
  }

  /** Starts the server (stopping a running one first). */
  async start(): Promise<void> {
    await this.stop();
    if (!vscode.workspace.isTrusted) {
      // Restricted Mode: the panel explains; trusting the folder starts the server.
      this.state = 'restricted';
      this.changed();
      return;
    }
    const command = serverPath((k) => this.config().get(k), this.ext.extensionPath, process.platform);
    ensureExecutable(command);
    // The API key reaches the server in its environment, never in a
    // protocol payload that traces would show.
    const key = await this.ext.secrets.get(secretKey);
    const env = key ? { ...process.env, OPENAI_API_KEY: key } : process.env;
    const serverOptions: ServerOptions = { command, args: ['serve', '--log-level', String(this.config().get('logLevel') || 'info')], options: { env } };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [{ scheme: 'file' }],
      // Files created, changed or deleted outside the editor's buffers keep the code index fresh.
      synchronize: { fileEvents: vscode.workspace.createFileSystemWatcher('**/*') },
      outputChannel: this.output,
      initializationOptions: this.settings(),
      // A review of an unapplied branch is shown on the branch's copy, under a path that names it (never like the user's file).
      middleware: { handleDiagnostics: (uri, diagnostics, next) => next(reviewUri(uri), diagnostics) },
      errorHandler: {
        error: (): ErrorHandlerResult => ({ action: ErrorAction.Continue }),
        closed: (): CloseHandlerResult => this.onClosed(),
      },
    };
    const client = new LanguageClient('autarch', 'Autarch', serverOptions, clientOptions);
    client.registerFeature(autarchFeature);
    // Registered before start so that no early request finds no handler.
    for (const [method, fn] of this.requestHandlers) client.onRequest(method, fn);
    for (const [method, fn] of this.notificationHandlers) client.onNotification(method, fn);
    this.client = client;
    client.onDidChangeState((e) => {
      this.state = e.newState === State.Running ? 'running' : e.newState === State.Starting ? 'starting' : 'stopped';
      // A connection that ends (a crash the client restarts, or a stop)
      // takes its open requests with it.
      if (e.oldState === State.Running && e.newState !== State.Running) this.stopped();
      this.changed();
    });
    this.state = 'starting';
    this.lastError = undefined;
    this.changed();
    try {
      await client.start();
    } catch (err) {
      this.lastError = `Could not start ${command}: ${String(err)}`;
      this.state = 'stopped';
      this.changed();
      void this.showError(this.lastError);
      return;
    }
    client.onNotification(MethodStatusChanged, (st: ServerStatus) => {
      this.status = st;
      this.changed();
    });
    await this.refreshStatus();
  }

  /** Called by the client when the server's connection closes unexpectedly. */
  private onClosed(): CloseHandlerResult {
    if (this.budget.allow(Date.now())) {
      void this.showError('The Autarch server stopped unexpectedly and is being restarted.');
      return { action: CloseAction.Restart };
    }
    this.lastError = 'The Autarch server crashed 5 times in 3 minutes and was not restarted. Run "Autarch: Restart Server" after checking the log.';
    void this.showError(this.lastError);
    return { action: CloseAction.DoNotRestart };
  }

  private async showError(message: string): Promise<void> {
    const choice = await vscode.window.showErrorMessage(message, 'Open Log');
    if (choice === 'Open Log') this.output.show(true);
  }

  async stop(): Promise<void> {
    const c = this.client;
    this.client = undefined;
    this.status = undefined;
    if (c && c.state !== State.Stopped) {
      try {
        await c.stop();
      } catch (err) {
        this.output.appendLine(`stopping the server: ${String(err)}`);
      }
    }
    this.state = 'stopped';
    this.stopped();
    this.changed();
  }

  /** Asks the server for its status (autarch/status). */
  async refreshStatus(): Promise<ServerStatus | undefined> {
    if (!this.client || this.client.state !== State.Running) return undefined;
    this.status = await this.client.sendRequest<ServerStatus>(MethodStatus, {});
    this.project = await this.client.sendRequest<ProjectState>(MethodProject, {}).catch(() => undefined);
    this.changed();
    return this.status;
  }

  /** Sends a custom request (autarch/...) to the server. */
  async request<T>(method: string, params: unknown = {}): Promise<T> {
    if (!this.client || this.client.state !== State.Running) {
throw new Error(notRunningMessage(this.state));
    }
    return this.client.sendRequest<T>(method, params);
  }

  /** Runs a server command through workspace/executeCommand. */
  async executeCommand<T>(command: string, args: unknown[] = []): Promise<T> {
    if (!this.client || this.client.state !== State.Running) {
throw new Error(notRunningMessage(this.state));
    }
    return this.client.sendRequest<T>('workspace/executeCommand', { command, arguments: args });
  }

  /** Sends the current settings (without the API key) to the server. */
  async pushSettings(): Promise<void> {
    if (!this.client || this.client.state !== State.Running) return;
    await this.client.sendNotification('workspace/didChangeConfiguration', { settings: { autarch: this.settings() } });
  }

  /** Stores the key and hands it to the running server by its dedicated request. */
  async setApiKey(key: string): Promise<void> {
    if (key) await this.ext.secrets.store(secretKey, key);
    else await this.ext.secrets.delete(secretKey);
    if (!this.client || this.client.state !== State.Running) return;
    const params: SetAPIKeyParams = { apiKey: key };
    await this.client.sendRequest(MethodSetAPIKey, params);
  }

  dispose(): void {
    void this.stop();
    this.output.dispose();
  }
}

/** A .vsix may lose the executable bit of the shipped server: restore it. */
function ensureExecutable(file: string): void {
  try {
    accessSync(file, constants.X_OK);
  } catch {
    try {
      chmodSync(file, 0o755);
    } catch {
      // Not ours to fix (a configured path); starting it reports the error.
    }
  }
}
