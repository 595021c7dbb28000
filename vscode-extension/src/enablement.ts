// Which commands need the server: the command table (commands.ts) runs
// these only while it runs, and package.json enables them by the
// autarch.serverRunning context key the extension keeps in step with the
// client's state (a test checks package.json against this file).
import type { ServerState } from './status';

/** The context key that is true while the server runs. */
export const serverRunningKey = 'autarch.serverRunning';

/** The when-clause of the commands that need the server. */
export const serverEnablement = serverRunningKey;

/** Commands that work without a running server (they start it, or show what went wrong). */
export const serverFree: ReadonlySet<string> = new Set(['autarch.openLog', 'autarch.restartServer', 'autarch.setApiKey']);

/** Whether a command can run in a server state. */
export function commandEnabled(id: string, state: ServerState): boolean {
  return serverFree.has(id) || state === 'running';
}

/** What to tell a user who runs a command the server's state does not allow, and what to do next (without the "Autarch: " prefix). */
export function notRunningMessage(state: ServerState): string {
  switch (state) {
    case 'restricted':
      return 'This folder is in Restricted Mode. Workflows run tools and commands in it, so they need a trusted folder: trust it (Workspaces: Manage Workspace Trust) and Autarch starts.';
    case 'starting':
      return 'The Autarch server is starting. Try again in a moment, or run "Autarch: Show Log" if it does not start.';
    default:
      return 'The Autarch server is not running. Run "Autarch: Restart Server", or "Autarch: Show Log" to see why it stopped.';
  }
}
