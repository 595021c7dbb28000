// Native prompts for the server's questions and approvals: QuickPick and
// InputBox for questions, a notification for approvals. Closing a prompt
// never answers: the item stays in the pending store (and the side panel).
import * as vscode from 'vscode';
import { FreeText, MultiSelect, Ranked, SingleSelect, type Answer, type Question } from './lspext.gen';
import { approvalButtons, approvalMessage, isUnifiedDiff, noLinks } from './diff';
import type { PendingApproval, PendingQuestions, PendingStore } from './pending';
import { pickAnswer, remainingRanked, textAnswer } from './questions';

/** Shows one prompt at a time: a second QuickPick would close the first. */
export class PromptQueue {
  private tail: Promise<unknown> = Promise.resolve();
  run<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.tail.then(fn, fn);
    this.tail = next.catch(() => undefined);
    return next;
  }
}

/** Asks the questions of a pending item one by one; returns true when they were all answered. */
export async function promptQuestions(store: PendingStore, item: PendingQuestions): Promise<boolean> {
  const answers: Answer[] = [];
  const n = item.questions.length;
  for (let i = 0; i < n; i++) {
    if (!store.get(item.id)) return false; // answered in the panel meanwhile
    const step = n > 1 ? ` (${i + 1}/${n})` : '';
    const title = `${item.title || 'Autarch asks'}${step}`;
    const a = await promptOne(item.questions[i], title, item.draft[i]);
    if (!a) {
      // Keep what was answered so far for the panel; the rest waits there.
      answers.forEach((ans, k) => store.setDraft(item.id, k, ans));
      return false;
    }
    answers.push(a);
  }
  if (!store.get(item.id)) return false;
  const err = store.answer(item.id, answers);
  if (err) {
    void vscode.window.showWarningMessage(noLinks(`Autarch: ${err}`));
    return false;
  }
  return true;
}

async function promptOne(q: Question, title: string, draft: Answer | undefined): Promise<Answer | undefined> {
  const options = q.options ?? [];
  switch (q.type) {
    case SingleSelect: {
      const items = options.map((o) => ({ label: o, picked: draft?.values.includes(o) }));
      const pick = await vscode.window.showQuickPick(items, { title, placeHolder: q.prompt, ignoreFocusOut: true });
      return pick ? pickAnswer(q, [pick.label]) : undefined;
    }
    case MultiSelect: {
      const items = options.map((o) => ({ label: o, picked: draft?.values.includes(o) ?? false }));
      const picks = await vscode.window.showQuickPick(items, { title, placeHolder: q.prompt, canPickMany: true, ignoreFocusOut: true });
      return picks ? pickAnswer(q, picks.map((p) => p.label)) : undefined;
    }
    case Ranked: {
      const ranked: string[] = [];
      for (;;) {
        const left = remainingRanked(q, ranked);
        if (left.length <= 1) {
          ranked.push(...left);
          return pickAnswer(q, ranked);
        }
        const sofar = ranked.length ? ` — so far: ${ranked.map((r, k) => `${k + 1}. ${r}`).join(', ')}` : '';
        const pick = await vscode.window.showQuickPick(
          left.map((o) => ({ label: o })),
          { title: `${title}: pick #${ranked.length + 1} (best first)`, placeHolder: `${q.prompt}${sofar}`, ignoreFocusOut: true },
        );
        if (!pick) return undefined;
        ranked.push(pick.label);
      }
    }
    case FreeText:
    default: {
      const text = await vscode.window.showInputBox({
        title,
        prompt: q.prompt,
        value: draft?.values[0] ?? '',
        ignoreFocusOut: true,
        validateInput: (v) => (v.trim() ? undefined : 'Write an answer, or press Escape to answer later in the Autarch panel.'),
      });
      return text === undefined ? undefined : textAnswer(text);
    }
  }
}

/** Asks for the feedback of "Request Changes"; undefined when the box was closed. */
export async function promptFeedback(title: string): Promise<string | undefined> {
  return vscode.window.showInputBox({
    title: `Request changes: ${title}`,
    prompt: 'What should change? The agent gets this as feedback.',
    ignoreFocusOut: true,
  });
}

/**
 * Shows an approval as a notification with short buttons (Approve, Always
 * allow when offered, Details, More…); More… offers Request Changes and
 * Abort All in a QuickPick. The user's choice decides it; "Details" (or
 * closing the notification) leaves it pending in the panel.
 */
export async function promptApproval(store: PendingStore, item: PendingApproval, showDetails: () => void): Promise<void> {
  const a = item.approval;
  let choice = await vscode.window.showInformationMessage(approvalMessage(a), ...approvalButtons(a));
  if (choice === 'More…') {
    const more = [
      { label: 'Request Changes', detail: 'Tell the agent what should change' },
      ...(a.allowAbort ? [{ label: 'Abort All', detail: 'Stop the whole run; resume the workflow later' }] : []),
      { label: 'Details', detail: isUnifiedDiff(a.detail) ? 'Open the change in a diff editor' : 'Show it in the Autarch panel' },
    ];
    choice = (await vscode.window.showQuickPick(more, { title: `Autarch: ${a.title}`, placeHolder: 'Decide', ignoreFocusOut: true }))?.label;
  }
  if (!store.get(item.id)) {
    // Decided in the panel meanwhile (a notification cannot be closed from here).
    if (choice) void vscode.window.showInformationMessage(noLinks(`Autarch: “${a.title}” was already answered.`));
    return;
  }
  switch (choice) {
    case 'Approve':
      store.decide(item.id, { decision: 'approve' });
      return;
    case 'Always allow':
      store.decide(item.id, { decision: 'always' });
      return;
    case 'Abort All':
      // Stops the whole run (the workflow is stopped, resumable).
      store.decide(item.id, { decision: 'abort' });
      return;
    case 'Request Changes': {
      const feedback = await promptFeedback(a.title);
      if (feedback === undefined) {
        showDetails();
        return;
      }
      store.decide(item.id, { decision: 'reject', feedback });
      return;
    }
    case 'Details':
      showDetails();
      return;
    default:
      // Closed: it stays pending in the side panel.
      return;
  }
}
