// The fleet's palette commands (autarch.fleet.natsUrl): Run in Background
// queues a workflow or a job for the fleet's workers (autarch/fleetSubmit);
// Answer Fleet Run answers the question a fleet run waits on
// (autarch/fleetAnswer); Apply Fleet Run fetches a completed run's branch
// and applies it as a workflow is applied (autarch/fleetApply). The side
// panel's fleet buttons run the same commands with the run's id.
import * as vscode from 'vscode';
import type { App } from './app';
import { askTask } from './ask';
import type { Command } from './commands';
import { fleetActions } from './runs';
import { jobModes } from './jobs';
import {
  MethodFleetAnswer,
  MethodFleetApply,
  MethodFleetSubmit,
  type ApplyWorkflowResult,
  type FleetAnswerParams,
  type FleetApplyParams,
  type FleetRunRef,
  type FleetSubmitParams,
  type RunSummary,
} from './lspext.gen';
import type { FleetOp } from './panelHtml';

const arg = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);

/** The palette command each fleet button runs; the run's id is its argument. */
export const fleetOpCommands: Record<FleetOp, string> = {
  answer: 'autarch.ui.answerFleetRun',
  apply: 'autarch.ui.applyFleetRun',
};

/** The kinds "Run in Background" offers. */
export const backgroundKinds = [
  { label: 'Workflow', description: 'scope, plan, pulses and review, as New Workflow', runKind: 'workflow' },
  { label: 'Job', description: 'one agent on an ai/… branch until it commits, as Start Job', runKind: 'job' },
];

/** The fleet run a command works on: the one named (a panel button) when it offers op, else a pick of those that do. */
async function pickRun(app: App, id: string | undefined, op: FleetOp, none: string): Promise<RunSummary | undefined> {
  await app.runs.refresh();
  const runs = app.runs.runs.filter((r) => r.fleet && fleetActions(r).includes(op));
  if (id) {
    const named = runs.find((r) => r.id === id);
    if (!named) void vscode.window.showInformationMessage(`Autarch: fleet run ${id} has nothing to ${op} now; the side panel shows where it is.`);
    return named;
  }
  if (!runs.length) {
    void vscode.window.showInformationMessage(`Autarch: ${none}`);
    return undefined;
  }
  if (runs.length === 1) return runs[0];
  const pick = await vscode.window.showQuickPick(
    runs.map((r) => ({ label: r.name, description: `${r.kind} · ${r.status}${r.worker ? ` · ${r.worker}` : ''}`, detail: r.prompt || r.task, run: r })),
    { title: `Autarch: ${op} a fleet run`, ignoreFocusOut: true },
  );
  return pick?.run;
}

export const fleetCommands: Record<string, Command> = {
  'autarch.ui.runInBackground': async (app, kindArg) => {
    const kind = arg(kindArg) === 'job' || arg(kindArg) === 'workflow' ? arg(kindArg) : (await vscode.window.showQuickPick(backgroundKinds, { title: 'Autarch: Run in Background (1/2): what runs', ignoreFocusOut: true }))?.runKind;
    if (!kind) return;
    const task = await askTask(
      'Autarch: Run in Background (2/2)',
      `What should the ${kind} do? A worker of the fleet clones the repository, runs it and pushes its branch; its questions wait in the side panel.`,
      'e.g. Add a Sub function to calc.go',
    );
    if (task === undefined) return;
    const params: FleetSubmitParams = { kind, task };
    if (kind === 'job') {
      const mode = await vscode.window.showQuickPick(jobModes, { title: 'Autarch: Run in Background: the job\'s mode', placeHolder: 'mechanic or genius', ignoreFocusOut: true });
      if (!mode) return;
      params.mode = mode.mode;
    }
    const ref = await app.ctx.request<FleetRunRef>(MethodFleetSubmit, params);
    await app.runs.refresh();
    void vscode.window.showInformationMessage(`Autarch: ${kind} queued for the fleet as run ${ref.id}; the side panel shows its worker and its questions.`);
  },
  'autarch.ui.answerFleetRun': async (app, id, text) => {
    const run = await pickRun(app, arg(id), 'answer', 'no fleet run waits on an answer.');
    if (!run) return;
    let answer = typeof text === 'string' && text.trim() ? text.trim() : undefined;
    if (answer === undefined) {
      answer = await vscode.window.showInputBox({
        title: `Autarch: fleet run ${run.name}`,
        prompt: [...(run.context ?? []).slice(-3), run.prompt ?? ''].join(' · '),
        placeHolder: 'Your answer, as you would type it after autarch submit --wait',
        ignoreFocusOut: true,
      });
      if (answer === undefined) return;
    }
    const params: FleetAnswerParams = { id: run.id, answer };
    await app.ctx.request(MethodFleetAnswer, params);
    await app.runs.refresh();
  },
  'autarch.ui.applyFleetRun': async (app, id) => {
    const run = await pickRun(app, arg(id), 'apply', 'no fleet run has completed with a branch yet.');
    if (!run) return;
    const how = await vscode.window.showQuickPick(
      [
        { label: 'Fast-forward the current branch', description: run.branch, mode: 'merge' },
        { label: 'Bring the changes into the working tree (undoable edit)', mode: 'edit' },
      ],
      { title: `Autarch: apply fleet run ${run.name} (its branch is fetched from the remote first)`, ignoreFocusOut: true },
    );
    if (!how) return;
    const params: FleetApplyParams = { id: run.id, mode: how.mode };
    const res = await app.ctx.request<ApplyWorkflowResult>(MethodFleetApply, params);
    const show = res.applied ? vscode.window.showInformationMessage : vscode.window.showWarningMessage;
    void show(`Autarch: ${res.message}`);
  },
};
