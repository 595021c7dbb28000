// Revert and redo of a workflow's pulses (issue 32): the palette commands,
// also run by the side panel's Revert…/Redo… buttons with the workflow and
// pulse preselected (revertView.ts has the pure helpers).
import * as vscode from 'vscode';
import type { App } from './app';
import { noLinks } from './diff';
import {
  MethodPlanRevert,
  MethodPulseReceipt,
  MethodRedoPulse,
  MethodRevertPulse,
  MethodWorkflow,
  MethodWorkflows,
  type PulseReceiptParams,
  type PulseReceiptView,
  type PulseView,
  type RedoPulseParams,
  type RevertPlanView,
  type RevertPulseParams,
  type RevertPulseResult,
  type WorkflowDetail,
  type WorkflowRef,
  type WorkflowSummary,
} from './lspext.gen';
import { canRedo, canRevert, hasReceipt, parseReceiptQuery, pulseItems, receiptDocument, receiptLocation, receiptScheme, revertConfirmation, revertedMessage } from './revertView';

/** The workflow and the pulse a command works on: given (the panel's buttons) or picked. */
async function pickPulse(app: App, verb: 'Revert' | 'Redo' | 'Show the receipt of', fits: (p: PulseView) => boolean, id?: string, pulseId?: string): Promise<{ wf: WorkflowRef; pulse: string } | undefined> {
  let wf: WorkflowRef | undefined = id ? { workflowId: id, name: app.state.summary(id)?.name } : undefined;
  if (!wf) {
    const list = ((await app.ctx.request<WorkflowSummary[] | null>(MethodWorkflows, {})) ?? []).filter((w) => w.pulses > 0);
    if (!list.length) {
      void vscode.window.showInformationMessage(`Autarch: no workflow has pulses to ${verb.toLowerCase()} yet. Run "Autarch: New Workflow".`);
      return undefined;
    }
    const pick = await vscode.window.showQuickPick(
      list.map((w) => ({ label: w.name, description: `${w.stage} · ${w.status} · ${w.pulsesDone}/${w.pulses} pulses`, detail: w.task, wf: w })),
      { title: `Autarch: ${verb} a pulse of which workflow?`, matchOnDetail: true, ignoreFocusOut: true },
    );
    if (!pick) return undefined;
    wf = { workflowId: pick.wf.id, name: pick.wf.name };
  }
  if (pulseId) return { wf, pulse: pulseId };
  const detail = await app.ctx.request<WorkflowDetail>(MethodWorkflow, wf);
  const items = pulseItems(detail, fits);
  if (!items.length) {
    const what = { Revert: 'no done pulse to revert', Redo: 'no reverted pulse to redo (Revert Pulse… first)', 'Show the receipt of': 'no done pulse, so no receipt yet' }[verb];
    void vscode.window.showInformationMessage(`Autarch: ${wf.name ?? wf.workflowId} has ${what}.`);
    return undefined;
  }
  const pick = await vscode.window.showQuickPick(items, { title: `Autarch: ${verb} which pulse of ${wf.name ?? wf.workflowId}?`, ignoreFocusOut: true });
  return pick ? { wf, pulse: pick.pulse.id } : undefined;
}

export const revertCommands: Record<string, (app: App, ...args: unknown[]) => Promise<void>> = {
  'autarch.ui.revertPulse': async (app, id, pulseId) => {
    const target = await pickPulse(app, 'Revert', canRevert, typeof id === 'string' && id ? id : undefined, typeof pulseId === 'string' && pulseId ? pulseId : undefined);
    if (!target) return;
    const params: RevertPulseParams = { workflowId: target.wf.workflowId, pulse: target.pulse };
    const plan = await app.ctx.request<RevertPlanView>(MethodPlanRevert, params);
    const confirm = revertConfirmation(plan);
    const choice = await vscode.window.showWarningMessage(confirm.message, { modal: true, detail: confirm.detail }, confirm.button);
    if (choice !== confirm.button) {
      void vscode.window.showInformationMessage(`Autarch: nothing was reverted; ${plan.workflow} is unchanged.`);
      return;
    }
    if (plan.appliedTo) params.applied = true;
    const res = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Autarch: reverting ${plan.pulse} of ${plan.workflow}…` }, () =>
      app.ctx.request<RevertPulseResult>(MethodRevertPulse, params),
    );
    await app.state.select(plan.workflowId).catch(() => undefined);
    const msg = revertedMessage(res);
    const next = await vscode.window.showInformationMessage(noLinks(msg.text), ...msg.buttons);
    if (next === 'Redo Pulse…') await vscode.commands.executeCommand('autarch.ui.redoPulse', plan.workflowId, plan.pulse);
    else if (next === 'Resume Workflow') await vscode.commands.executeCommand('autarch.ui.resumeWorkflow', plan.workflowId);
    else if (next === 'Apply Again') await vscode.commands.executeCommand('autarch.ui.applyWorkflow', plan.workflowId);
  },

  'autarch.ui.redoPulse': async (app, id, pulseId) => {
    const target = await pickPulse(app, 'Redo', canRedo, typeof id === 'string' && id ? id : undefined, typeof pulseId === 'string' && pulseId ? pulseId : undefined);
    if (!target) return;
    const guidance = await vscode.window.showInputBox({
      title: `Autarch: Redo ${target.pulse}`,
      prompt: 'Guidance for the pulse’s agent this time (optional: leave empty to run it as planned; Esc cancels)',
      placeHolder: 'e.g. use a table test',
      ignoreFocusOut: true,
    });
    if (guidance === undefined) return;
    const params: RedoPulseParams = { workflowId: target.wf.workflowId, pulse: target.pulse };
    if (guidance.trim()) params.guidance = guidance.trim();
    const ref = await app.ctx.request<WorkflowRef>(MethodRedoPulse, params);
    await app.state.select(ref.workflowId).catch(() => undefined);
    await app.panel.reveal();
    void vscode.window.showInformationMessage(
      `Autarch: running ${target.pulse} of ${ref.name ?? target.wf.name ?? ref.workflowId} again${params.guidance ? ' with your guidance' : ''}; the panel shows its progress.`,
    );
  },

  'autarch.ui.showReceipt': async (app, id, pulseId) => {
    const target = await pickPulse(app, 'Show the receipt of', hasReceipt, typeof id === 'string' && id ? id : undefined, typeof pulseId === 'string' && pulseId ? pulseId : undefined);
    if (!target) return;
    const params: PulseReceiptParams = { workflowId: target.wf.workflowId, pulse: target.pulse };
    const r = await app.ctx.request<PulseReceiptView>(MethodPulseReceipt, params);
    if (!r.found) {
      void vscode.window.showInformationMessage(noLinks(`Autarch: ${r.message ?? `${target.pulse} has no receipt.`}`));
      return;
    }
    // A read-only document of receiptScheme (not an Untitled buffer that asks to be saved when closed).
    const uri = vscode.Uri.from({ scheme: receiptScheme, ...receiptLocation(target.wf.workflowId, target.wf.name ?? target.wf.workflowId, target.pulse) });
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc, { preview: true });
  },
};

/** The text of a receipt document (receiptScheme): the pulse's receipt as the server has it now. */
export async function receiptContent(app: App, uri: vscode.Uri): Promise<string> {
  const q = parseReceiptQuery(uri.query);
  if (!q) return 'This receipt document names no pulse: open a receipt with the Receipt button of a done pulse in the Autarch panel.\n';
  const r = await app.ctx.request<PulseReceiptView>(MethodPulseReceipt, { workflowId: q.workflowId, pulse: q.pulse } satisfies PulseReceiptParams);
  if (!r.found) return `${r.message ?? `${q.pulse} has no receipt.`}\n`;
  return receiptDocument(q.workflow, q.pulse, r);
}
