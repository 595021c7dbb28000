// Pure mapping from VS Code settings to the server's Settings and binary path.
import * as path from 'node:path';
import type { Settings } from './lspext.gen';

/** Reads one setting; `vscode.workspace.getConfiguration('autarch').get` fits. */
export type Getter = (key: string) => unknown;

function str(v: unknown): string {
  return typeof v === 'string' ? v.trim() : '';
}

/** The settings sent as initializationOptions and in didChangeConfiguration (the API key is not one). */
export function settingsFrom(get: Getter): Settings {
  const s: Settings = { model: {} };
  const baseUrl = str(get('model.baseUrl'));
  const name = str(get('model.name'));
  const logLevel = str(get('logLevel'));
  if (baseUrl) s.model.baseUrl = baseUrl;
  if (name) s.model.name = name;
  if (logLevel) s.logLevel = logLevel;
  const natsUrl = str(get('fleet.natsUrl'));
  if (natsUrl) {
    s.fleet = { natsUrl };
    const creds = str(get('fleet.creds'));
    const repo = str(get('fleet.repo'));
    if (creds) s.fleet.creds = creds;
    if (repo) s.fleet.repo = repo;
  }
  return s;
}

/** The context key that is true when a fleet is configured (autarch.fleet.natsUrl): "Run in Background" shows. */
export const fleetConfiguredKey = 'autarch.fleetConfigured';

/** Whether a fleet is configured: "Run in Background" submits to it. */
export function fleetConfigured(get: Getter): boolean {
  return str(get('fleet.natsUrl')) !== '';
}

/** The autarch binary: the configured path, else the one shipped in the extension. */
export function serverPath(get: Getter, extensionDir: string, platform: NodeJS.Platform): string {
  const configured = str(get('serverPath'));
  if (configured) return configured;
  return path.join(extensionDir, 'server', platform === 'win32' ? 'autarch.exe' : 'autarch');
}

/** Restart policy: at most `max` restarts within `windowMs`. */
export class RestartBudget {
  private times: number[] = [];
  constructor(private readonly max = 5, private readonly windowMs = 3 * 60_000) {}
  /** Records a crash at `now` and reports whether another restart is allowed. */
  allow(now: number): boolean {
    this.times = this.times.filter((t) => now - t < this.windowMs);
    this.times.push(now);
    return this.times.length <= this.max;
  }
}
