// Revert and redo of a workflow's pulses (issue 32), the pure half: what a
// pulse offers, the confirmation's text and the messages (revert.ts has
// the commands).
import type { PulseReceiptView, PulseView, RevertPlanView, RevertPulseResult, WorkflowDetail } from './lspext.gen';

/** A pulse that can be reverted: done, with its checkpoint commit on the workflow branch. */
export const canRevert = (p: PulseView): boolean => p.status === 'Succeeded' && !!p.commit && !p.recovery;

/** A pulse whose receipt can be shown: done, with its checkpoint commit. */
export const hasReceipt = (p: PulseView): boolean => p.status === 'Succeeded' && !!p.commit && !p.recovery;

/** A pulse that can be redone: reverted, pending again. */
export const canRedo = (p: PulseView): boolean => !!p.reverted;

/** The status a pulse shows: "reverted" for a reverted pulse, else its status. */
export const pulseStatusLabel = (p: PulseView): string => (p.reverted ? 'reverted' : p.status);

const plural = (n: number, one: string): string => `${n} ${one}${n === 1 ? '' : 's'}`;

/** The modal confirmation of a revert: its message, its detail (the pulses and files undone) and its button. */
export function revertConfirmation(plan: RevertPlanView): { message: string; detail: string; button: string } {
  const ids = plan.pulses.map((p) => p.id);
  const message =
    ids.length > 1
      ? `Revert ${plan.pulse} of ${plan.workflow}, and ${ids.filter((id) => id !== plan.pulse).join(', ')} that depend${ids.length > 2 ? '' : 's'} on it?`
      : `Revert ${plan.pulse} of ${plan.workflow}?`;
  const lines = [`Undone on ${plan.branch} as revert commits (history is kept; your branch is not touched):`];
  for (const p of plan.pulses) lines.push(`• ${p.id} ${p.title}${p.summary ? ` — ${p.summary}` : ''}${p.commit ? '' : ' (nothing committed)'}`);
  lines.push('', plan.files.length ? `${plural(plan.files.length, 'file')}: ${plan.files.join(', ')}` : 'No file changes.');
  lines.push('', 'The pulses become pending again with their instructions: Redo Pulse… runs one again, with your guidance.');
  if (plan.appliedTo) {
    lines.push('', `The workflow was already applied to ${plan.appliedTo}, which keeps these changes: after the revert, Apply Workflow again to bring it there.`);
  }
  return { message, detail: lines.join('\n'), button: plan.appliedTo ? `Revert (${plan.appliedTo} keeps its changes)` : 'Revert' };
}

/** What a finished revert says, and the buttons offered after it. */
export function revertedMessage(res: RevertPulseResult): { text: string; buttons: string[] } {
  const plan = res.plan;
  const ids = plan.pulses.map((p) => p.id);
  let text = `Autarch: reverted ${ids.join(', ')} of ${plan.workflow} (${plural(res.commits.length, 'revert commit')} on ${plan.branch}`;
  text += res.resolved ? `, ${plural(res.resolved, 'review comment')} resolved).` : ').';
  text += ` ${ids.length > 1 ? 'They are' : 'It is'} pending again: redo ${ids.length > 1 ? 'one' : 'it'} with new guidance, or resume the workflow.`;
  const buttons = ['Redo Pulse…', 'Resume Workflow'];
  if (plan.appliedTo) {
    text += ` ${plan.appliedTo} still has the reverted changes: apply the workflow again to bring the revert there.`;
    buttons.unshift('Apply Again');
  }
  return { text, buttons };
}

/** A QuickPick item per pulse that fits. */
export function pulseItems(d: WorkflowDetail, fits: (p: PulseView) => boolean): { label: string; description: string; detail?: string; pulse: PulseView }[] {
  return (d.pulses ?? []).filter(fits).map((p) => ({
    label: `${p.id}: ${p.title}`,
    description: pulseStatusLabel(p) + (p.commit ? ` · ${p.commit.slice(0, 10)}` : ''),
    detail: p.summary || undefined,
    pulse: p,
  }));
}

/** The read-only document a receipt opens as: its text, then its JSON (what autarch receipt verify re-checks). */
export function receiptDocument(workflow: string, pulse: string, r: PulseReceiptView): string {
  return (
    `# Completion receipt of ${pulse} (${workflow})\n\n` +
    `\`\`\`text\n${(r.text ?? '').trimEnd()}\n\`\`\`\n\n` +
    `Re-check it on this commit: autarch receipt verify ${r.commit ?? ''}\n\n` +
    `## The receipt as recorded (git notes, refs/notes/autarch)\n\n\`\`\`json\n${r.receipt ?? ''}\n\`\`\`\n`
  );
}

/** The scheme of a receipt's read-only document (revert.ts fetches its text from the server when it is opened). */
export const receiptScheme = 'autarch-receipt';

/** The path and query of a pulse's receipt document: the tab reads "<workflow> <pulse> receipt.md" (markdown), the query names the pulse. */
export function receiptLocation(workflowId: string, workflow: string, pulse: string): { path: string; query: string } {
  const name = `${workflow} ${pulse} receipt.md`.replace(/[/\\]/g, '-');
  return { path: `/${name}`, query: new URLSearchParams({ workflowId, workflow, pulse }).toString() };
}

/** The pulse a receipt document's query names; undefined when it names none. */
export function parseReceiptQuery(query: string): { workflowId: string; workflow: string; pulse: string } | undefined {
  const q = new URLSearchParams(query);
  const workflowId = q.get('workflowId') ?? '';
  const pulse = q.get('pulse') ?? '';
  if (!workflowId || !pulse) return undefined;
  return { workflowId, workflow: q.get('workflow') || workflowId, pulse };
}
