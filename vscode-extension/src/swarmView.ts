// The swarm view (a webview in Autarch's side bar) and the swarm palette
// commands: Start Swarm (task, agents, rounds, arbiter, writes), Stop,
// Resume, Decide Swarm Proposal (the diff beside, approve or reject, notes).
// Rendering and message checks are in swarm.ts (pure).
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { askTask } from './ask';
import type { Command } from './commands';
import {
  CommandDecideSwarmProposal,
  CommandResumeSwarm,
  CommandStartSwarm,
  CommandStopSwarm,
  type StartSwarmParams,
  type SwarmDecisionParams,
  type SwarmRef,
} from './lspext.gen';
import { awaitingProposals, checkAgentList, parseAgentList, parseSwarmMessage, renderSwarms, resumableSwarms, runningSwarms, swarmPage, type FromSwarmView, type SwarmList } from './swarm';

/** What the view runs its buttons' messages with. */
export interface SwarmHost {
  readonly swarms: SwarmList;
  executeCommand<T>(command: string, args: unknown[]): Promise<T>;
}

export class SwarmView implements vscode.WebviewViewProvider, vscode.Disposable {
  static readonly viewId = 'autarch.swarm';
  private view: vscode.WebviewView | undefined;
  private ready = false;
  private readonly sub: { dispose(): void };

  constructor(private readonly host: SwarmHost) {
    this.sub = host.swarms.onChange(() => this.flush());
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    this.ready = false;
    view.webview.options = { enableScripts: true, localResourceRoots: [] };
    const nonce = randomBytes(16).toString('base64url');
    view.webview.html = swarmPage(nonce, this.body());
    view.webview.onDidReceiveMessage(async (raw: unknown) => {
      const msg = parseSwarmMessage(raw);
      if (!msg) return;
      try {
        await this.onMessage(msg);
      } catch (err) {
        void vscode.window.showErrorMessage(`Autarch: ${err instanceof Error ? err.message : String(err)}`);
        this.flush();
      }
    });
    view.onDidChangeVisibility(() => {
      if (view.visible) void this.host.swarms.refresh();
    });
    view.onDidDispose(() => {
      if (this.view === view) this.view = undefined;
    });
  }

  private body(): string {
    const s = this.host.swarms;
    return renderSwarms(s.swarms, s.events, s.error);
  }

  private async onMessage(msg: FromSwarmView): Promise<void> {
    const ref = (id: string): SwarmRef => ({ swarmId: id });
    switch (msg.type) {
      case 'ready':
        this.ready = true;
        await this.host.swarms.refresh();
        return;
      case 'command':
        await vscode.commands.executeCommand(msg.command);
        return;
      case 'stop':
        await this.host.executeCommand(CommandStopSwarm, [ref(msg.swarmId)]);
        break;
      case 'resume':
        await this.host.executeCommand(CommandResumeSwarm, [ref(msg.swarmId)]);
        break;
      case 'decide': {
        const params: SwarmDecisionParams = { swarmId: msg.swarmId, proposalId: msg.proposalId, action: msg.action, notes: msg.notes };
        await this.host.executeCommand(CommandDecideSwarmProposal, [params]);
        break;
      }
    }
    this.host.swarms.scheduleRefresh();
  }

  private flush(): void {
    if (!this.view || !this.ready) return;
    void this.view.webview.postMessage({ type: 'render', body: this.body() });
  }

  dispose(): void {
    this.sub.dispose();
  }
}

export const swarmCommands: Record<string, Command> = {
  'autarch.ui.startSwarm': async (app) => {
    const task = await askTask(
      'Autarch: Start Swarm (1/4)',
      'What should the swarm work on? Several agents share findings in rounds; an arbiter approves their writes.',
      'e.g. Find and fix the flaky tests in the parser package',
    );
    if (task === undefined) return;
    const agents = await vscode.window.showInputBox({
      title: 'Autarch: Start Swarm (2/4): agents',
      prompt: 'NAME=MODEL, comma-separated (empty MODEL: the default model; explorer, tester and critic pick those roles).',
      value: 'explorer,tester,critic',
      ignoreFocusOut: true,
      validateInput: (v) => (parseAgentList(v).length ? checkAgentList(v) : 'Name at least one agent.'),
    });
    if (agents === undefined) return;
    const rounds = await vscode.window.showInputBox({
      title: 'Autarch: Start Swarm (3/4): rounds',
      value: '3',
      ignoreFocusOut: true,
      validateInput: (v) => (/^\d+$/.test(v.trim()) && +v >= 1 && +v <= 50 ? undefined : 'A number from 1 to 50.'),
    });
    if (rounds === undefined) return;
    const mode = await vscode.window.showQuickPick(
      [
        { label: 'You decide each write, writes applied', detail: 'Proposals appear in the Swarm view as diffs with Approve / Reject and notes; approved ones are committed on the swarm\'s own branch.', arbiter: 'human', allowWrite: true, readOnly: false },
        { label: 'You decide each write, nothing applied', detail: 'Decisions are recorded in the transcript only.', arbiter: 'human', allowWrite: false, readOnly: false },
        { label: 'A model decides (STRICT JSON), writes applied', detail: 'Name the arbiter model next.', arbiter: '', allowWrite: true, readOnly: false },
        { label: 'Read-only proposal rounds', detail: 'No writes: each agent ends with improvement proposals.', arbiter: 'human', allowWrite: false, readOnly: true },
      ],
      { title: 'Autarch: Start Swarm (4/4): arbiter and writes', ignoreFocusOut: true },
    );
    if (!mode) return;
    let arbiter = mode.arbiter;
    if (!arbiter) {
      const name = await vscode.window.showInputBox({ title: 'Autarch: arbiter model', prompt: 'The model that answers the STRICT JSON decisions', ignoreFocusOut: true, validateInput: (v) => (v.trim() ? undefined : 'Name a model.') });
      if (name === undefined) return;
      arbiter = name.trim();
    }
    const params: StartSwarmParams = { task, agents: parseAgentList(agents), rounds: Number(rounds), arbiter, allowWrite: mode.allowWrite, readOnly: mode.readOnly };
    const ref = await app.ctx.executeCommand<SwarmRef>(CommandStartSwarm, [params]);
    await app.swarms.refresh();
    await vscode.commands.executeCommand(`${SwarmView.viewId}.focus`);
    void vscode.window.showInformationMessage(`Autarch: swarm ${ref.swarmId} started; follow it in the Swarm view.`);
  },
  'autarch.ui.stopSwarm': async (app) => {
    await app.swarms.refresh();
    const pick = await pickSwarm(runningSwarms(app.swarms.swarms), 'Autarch: Stop Swarm', 'No swarm is running.');
    if (pick) await app.ctx.executeCommand(CommandStopSwarm, [{ swarmId: pick.id }]);
  },
  'autarch.ui.resumeSwarm': async (app) => {
    await app.swarms.refresh();
    const pick = await pickSwarm(resumableSwarms(app.swarms.swarms), 'Autarch: Resume Swarm', 'No swarm is stopped or failed.');
    if (pick) await app.ctx.executeCommand(CommandResumeSwarm, [{ swarmId: pick.id }]);
    await app.swarms.refresh();
  },
  'autarch.ui.decideSwarmProposal': async (app) => {
    await app.swarms.refresh();
    const waiting = awaitingProposals(app.swarms.swarms).filter((w) => w.swarm.arbiter === 'human');
    if (!waiting.length) {
      void vscode.window.showInformationMessage('Autarch: no swarm proposal waits for you.');
      return;
    }
    const pick = await vscode.window.showQuickPick(
      waiting.map((w) => ({ label: w.proposal.path, description: `${w.proposal.agent} · swarm ${w.swarm.id}`, detail: w.swarm.task, w })),
      { title: 'Autarch: Decide Swarm Proposal', ignoreFocusOut: true },
    );
    if (!pick) return;
    const doc = await vscode.workspace.openTextDocument({ language: 'diff', content: pick.w.proposal.diff });
    await vscode.window.showTextDocument(doc, { preview: true, preserveFocus: true, viewColumn: vscode.ViewColumn.Beside });
    const answer = await vscode.window.showQuickPick([{ label: 'Approve', action: 'approve' }, { label: 'Reject', action: 'reject' }], { title: `Autarch: ${pick.w.proposal.path}`, ignoreFocusOut: true });
    if (!answer) return;
    const notes = await vscode.window.showInputBox({ title: 'Autarch: notes for the agents (optional)', ignoreFocusOut: true });
    if (notes === undefined) return;
    const params: SwarmDecisionParams = { swarmId: pick.w.swarm.id, proposalId: pick.w.proposal.id, action: answer.action, notes };
    await app.ctx.executeCommand(CommandDecideSwarmProposal, [params]);
    app.swarms.scheduleRefresh();
  },
};

async function pickSwarm<T extends { id: string; task: string; status: string; reason?: string }>(list: T[], title: string, none: string): Promise<T | undefined> {
  if (!list.length) {
    void vscode.window.showInformationMessage(`Autarch: ${none}`);
    return undefined;
  }
  const pick = await vscode.window.showQuickPick(
    list.map((s) => ({ label: s.task, description: `${s.status} · ${s.id}`, detail: s.reason || undefined, s })),
    { title, ignoreFocusOut: true },
  );
  return pick?.s;
}
