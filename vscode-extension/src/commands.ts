// The palette commands: each gathers its input with native prompts and
// calls the server (workspace/executeCommand or an autarch/* request).
//
// The ids are "autarch.ui.*" because the language client registers the
// server's own commands (autarch.newWorkflow, autarch.discuss, …) as VS
// Code commands under their names: the same id twice would fail.
import * as vscode from 'vscode';
import type { App } from './app';
import { openWorkspaceFile } from './app';
import { askTask } from './ask';
import { noLinks } from './diff';
import { resolveWorkspaceFile } from './reviewComments';
import {
  CommandApplyWorkflow,
  CommandNewWorkflow,
  CommandPulseDiff,
  CommandReindex,
  CommandResumeWorkflow,
  CommandReviewBranch,
  CommandSearch,
  CommandServerStatus,
  CommandStopWorkflow,
  MethodFileAt,
  MethodWorkflow,
  MethodWorkflows,
  type FileAtParams,
  type FileAtResult,
  type ApplyWorkflowParams,
  type ApplyWorkflowResult,
  type NewWorkflowParams,
  type PulseDiff,
  type PulseDiffParams,
  type ReviewBranchParams,
  type ReviewView,
  type SearchHit,
  type SearchParams,
  type ServerStatus,
  type WorkflowDetail,
  type WorkflowRef,
  type WorkflowSummary,
} from './lspext.gen';
import { applyMessage, diffPairs, gitQuery, gitScheme, hitDetail, hitLabel, undoSteps, workflowsFor, type DiffSide, type UndoStep, type WorkflowFilter } from './picks';
import { promptFeedback } from './prompts';
import { reviewSummaryLine } from './review';

export type Command = (app: App, ...args: unknown[]) => Promise<void>;

const arg = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);

/** Every command of the extension, by id (package.json contributes them). */
export const commands: Record<string, Command> = {
  'autarch.showServerStatus': async ({ ctx }) => {
    const st = await ctx.executeCommand<ServerStatus>(CommandServerStatus);
    ctx.status = st;
    await ctx.refreshStatus();
    void vscode.window.showInformationMessage(st.message);
  },
  'autarch.openLog': async ({ ctx }) => {
    ctx.output.show(true);
  },
  'autarch.restartServer': async ({ ctx }) => {
    await ctx.start();
    void vscode.window.showInformationMessage('Autarch server restarted.');
  },
  'autarch.setApiKey': async ({ ctx }) => {
    const key = await vscode.window.showInputBox({
      title: 'Autarch: API key for the model endpoint',
      prompt: 'Stored in VS Code secret storage, never in settings.json. Leave empty to remove it.',
      password: true,
      ignoreFocusOut: true,
    });
    if (key === undefined) return;
    await ctx.setApiKey(key.trim());
    void vscode.window.showInformationMessage(key.trim() ? 'Autarch API key saved.' : 'Autarch API key removed.');
  },

  'autarch.ui.newWorkflow': async (app, opts) => {
    const dryRun = (opts as { dryRun?: boolean } | undefined)?.dryRun ?? vscode.workspace.getConfiguration('autarch').get<boolean>('dryRun', false);
    const task = await askTask(dryRun ? 'Autarch: New Workflow, Dry Run (1/3)' : 'Autarch: New Workflow (1/3)', 'What should the workflow do?', 'e.g. Add rate limiting to the login endpoint');
    if (task === undefined) return;
    const name = await vscode.window.showInputBox({
      title: 'Autarch: New Workflow (2/3)',
      prompt: 'Name of the workflow and its branch (optional: empty makes one from the task)',
      placeHolder: 'e.g. login-rate-limit',
      ignoreFocusOut: true,
      validateInput: (v) => (/^[\w./-]*$/.test(v.trim()) ? undefined : 'Use letters, digits, ".", "_", "-" and "/".'),
    });
    if (name === undefined) return;
    const paths = [
      { label: 'auto', description: 'Follow the scope card’s recommendation', path: '' },
      { label: 'quick', description: 'Scope, then one auto-executed pulse', path: 'quick' },
      { label: 'full', description: 'Scope, research, plan, then pulses', path: 'full' },
    ];
    const path = await vscode.window.showQuickPick(paths, { title: 'Autarch: New Workflow (3/3)', placeHolder: 'Path', ignoreFocusOut: true });
    if (!path) return;
    const params: NewWorkflowParams = { task };
    if (name.trim()) params.name = name.trim();
    if (path.path) params.path = path.path;
    if (dryRun) params.dryRun = true;
    const parallel = vscode.workspace.getConfiguration('autarch').get<number>('parallel', 1);
    if (Number.isInteger(parallel) && parallel > 1) params.parallel = parallel;
    const ref = await app.ctx.executeCommand<WorkflowRef>(CommandNewWorkflow, [params]);
    if (dryRun) {
      // A dry run keeps nothing to select: its cards come to the panel, its plan to the log.
      await app.panel.reveal();
      void vscode.window.showInformationMessage(`Autarch: dry run of ${ref?.name ?? 'the workflow'} started; nothing will be changed, and the plan is shown when it ends.`);
      return;
    }
    if (ref?.workflowId) {
      await app.state.select(ref.workflowId).catch(() => undefined);
      await app.panel.reveal();
    }
  },

  'autarch.ui.newDryRunWorkflow': async (app) => commands['autarch.ui.newWorkflow'](app, { dryRun: true }),

  'autarch.ui.discuss': async (app) => {
    const message = await vscode.window.showInputBox({
      title: 'Autarch: Discuss the Codebase',
      prompt: 'Ask about the codebase; the answer appears in the Autarch panel.',
      ignoreFocusOut: true,
    });
    if (!message?.trim()) return;
    await app.panel.reveal();
    await app.discuss(message.trim());
  },

  'autarch.ui.approve': async (app, id) => {
    const item = arg(id) ? app.pending.get(arg(id) as string) : await app.pickPending('approval');
    if (item?.kind !== 'approval') return;
    await app.decide(item.id, 'approve');
  },

  'autarch.ui.requestChanges': async (app, id) => {
    const item = arg(id) ? app.pending.get(arg(id) as string) : await app.pickPending('approval');
    if (item?.kind !== 'approval') return;
    const feedback = await promptFeedback(item.approval.title);
    if (feedback === undefined) return;
    await app.decide(item.id, 'reject', feedback, false);
  },

  'autarch.ui.answerQuestions': async (app, id) => {
    const item = arg(id) ? app.pending.get(arg(id) as string) : await app.pickPending('questions');
    if (item?.kind !== 'questions') return;
    const done = await app.askNow(item.id);
    if (!done && app.pending.get(item.id)) await app.showPending(item.id);
  },

  'autarch.ui.stopWorkflow': async (app, id) => {
    const wf = await pickWorkflow(app, 'Stop which workflow?', 'stop', arg(id));
    if (!wf) return;
    await app.ctx.executeCommand(CommandStopWorkflow, [{ workflowId: wf.id, name: wf.name } satisfies WorkflowRef]);
    await app.state.refresh();
    void vscode.window.showInformationMessage(`Autarch: stopped ${wf.name}.`);
  },

  'autarch.ui.resumeWorkflow': async (app, id) => {
    const wf = await pickWorkflow(app, 'Resume which workflow?', 'resume', arg(id));
    if (!wf) return;
    await app.ctx.executeCommand(CommandResumeWorkflow, [{ workflowId: wf.id, name: wf.name } satisfies WorkflowRef]);
    await app.state.select(wf.id).catch(() => undefined);
    void vscode.window.showInformationMessage(`Autarch: resumed ${wf.name}.`);
  },

  'autarch.ui.reviewBranch': async (app) => {
    const base = await vscode.window.showInputBox({
      title: 'Autarch: Review Current Branch',
      prompt: 'Base to review against',
      value: 'main',
      ignoreFocusOut: true,
      validateInput: (v) => (v.trim() ? undefined : 'Name a branch, tag or commit.'),
    });
    if (base === undefined) return;
    const params: ReviewBranchParams = { base: base.trim() };
    const review = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Autarch: reviewing the current branch against ${params.base}…` },
      () => app.ctx.executeCommand<ReviewView>(CommandReviewBranch, [params]),
    );
    if (!review) return;
    app.state.setBranchReview(review);
    if (review.comments?.length) app.review.show(review.comments);
    await app.state.select('').catch(() => undefined);
    const choice = await vscode.window.showInformationMessage(noLinks(`Autarch: ${reviewSummaryLine(review)}`), 'Show in Panel');
    if (choice === 'Show in Panel') await app.panel.reveal();
  },

  'autarch.ui.search': async (app) => {
    const query = await vscode.window.showInputBox({ title: 'Autarch: Search Codebase', prompt: 'What are you looking for? (meaning, not only words)', ignoreFocusOut: true });
    if (!query?.trim()) return;
    const params: SearchParams = { query: query.trim(), maxResults: 30 };
    const hits = (await app.ctx.executeCommand<SearchHit[] | null>(CommandSearch, [params])) ?? [];
    if (!hits.length) {
      void vscode.window.showInformationMessage(`Autarch: nothing found for “${params.query}”.`);
      return;
    }
    const pick = await vscode.window.showQuickPick(
      hits.map((h) => ({ label: hitLabel(h), description: h.adjusted_score ? h.adjusted_score.toFixed(3) : undefined, detail: hitDetail(h), hit: h })),
      { title: `Autarch: ${hits.length} results for “${params.query}”`, matchOnDetail: true, ignoreFocusOut: true },
    );
    if (!pick) return;
    await openWorkspaceFile(pick.hit.file_path, pick.hit.start_line, pick.hit.end_line || pick.hit.start_line);
  },

  'autarch.ui.reindex': async (app) => {
    await app.ctx.executeCommand(CommandReindex, [{}]);
    void vscode.window.showInformationMessage('Autarch: the workspace was reindexed.');
  },

  'autarch.ui.pulseDiff': async (app, id, pulse) => {
    const wf = await pickWorkflow(app, 'Diff of which workflow?', 'any', arg(id));
    if (!wf) return;
    let pulseId = typeof pulse === 'string' ? pulse : undefined;
    if (pulseId === undefined) {
      const detail = await app.ctx.request<WorkflowDetail>(MethodWorkflow, { workflowId: wf.id } satisfies WorkflowRef);
      const items = [
        { label: 'Whole workflow', description: wf.branch, pulseId: '' },
        ...(detail?.pulses ?? []).filter((p) => p.commit).map((p) => ({ label: p.title, description: `${p.status} · +${p.additions} −${p.deletions}`, pulseId: p.id })),
      ];
      const pick = await vscode.window.showQuickPick(items, { title: `Autarch: diff of ${wf.name}`, placeHolder: 'A pulse, or the whole workflow', ignoreFocusOut: true });
      if (!pick) return;
      pulseId = pick.pulseId;
    }
    const params: PulseDiffParams = { workflowId: wf.id };
    if (pulseId) params.pulseId = pulseId;
    const diff = await app.ctx.executeCommand<PulseDiff>(CommandPulseDiff, [params]);
    await openDiff(diff);
  },

  'autarch.ui.applyWorkflow': async (app, id) => {
    const wf = await pickWorkflow(app, 'Apply which workflow?', 'any', arg(id));
    if (!wf) return;
    const modes = [
      { label: 'Merge the workflow branch', description: wf.branch, mode: 'merge' },
      { label: 'Bring the changes into my working tree (undoable edit)', description: 'as a workspace edit', mode: 'edit' },
    ];
    const pick = await vscode.window.showQuickPick(modes, { title: `Autarch: apply ${wf.name}`, ignoreFocusOut: true });
    if (!pick) return;
    const params: ApplyWorkflowParams = { workflowId: wf.id, mode: pick.mode };
    // The workflow's diff (its base and which files it creates) for Undo.
    const diff = pick.mode === 'edit' ? await app.ctx.executeCommand<PulseDiff>(CommandPulseDiff, [{ workflowId: wf.id } satisfies PulseDiffParams]).catch(() => undefined) : undefined;
    const res = await app.ctx.executeCommand<ApplyWorkflowResult>(CommandApplyWorkflow, [params]);
    const text = noLinks(applyMessage(res)); // names the workflow's files
    await app.state.refresh().catch(() => undefined);
    if (!res?.applied) {
      void vscode.window.showWarningMessage(text);
      return;
    }
    if (!diff || !res.files?.length) {
      void vscode.window.showInformationMessage(text);
      return;
    }
    if ((await vscode.window.showInformationMessage(text, 'Undo')) === 'Undo') await undoApply(app, undoSteps(diff, res.files));
  },
};

/** Undoes an applied workflow as one workspace edit: the files it created are deleted, the others get their base content back. */
async function undoApply(app: App, steps: UndoStep[]): Promise<void> {
  const edit = new vscode.WorkspaceEdit();
  for (const st of steps) {
    if ('remove' in st) {
      const uri = resolveWorkspaceFile(st.remove);
      if (uri) edit.deleteFile(uri, { ignoreIfNotExists: true });
      continue;
    }
    const uri = resolveWorkspaceFile(st.restore.path);
    if (!uri) continue;
    const at = await app.ctx.request<FileAtResult>(MethodFileAt, { commit: st.restore.commit, path: st.restore.path } satisfies FileAtParams);
    if (at?.missing) continue;
    const text = at?.text ?? '';
    const doc = await vscode.workspace.openTextDocument(uri).then(
      (d) => d,
      () => undefined,
    );
    if (doc) edit.replace(uri, new vscode.Range(0, 0, doc.lineCount, 0), text);
    else edit.createFile(uri, { overwrite: true, contents: new TextEncoder().encode(text) });
  }
  const ok = await vscode.workspace.applyEdit(edit, { isRefactoring: false });
  const created = steps.filter((s) => 'remove' in s).length;
  if (ok) void vscode.window.showInformationMessage(`Autarch: the apply was undone (${steps.length - created} file${steps.length - created === 1 ? '' : 's'} restored, ${created} removed). Save the restored files to keep them.`);
  else void vscode.window.showWarningMessage('Autarch: the apply could not be undone; use git checkout on the files, or Edit > Undo in each file.');
}

/** A workflow from an id (panel buttons) or a QuickPick of autarch/workflows. */
async function pickWorkflow(app: App, title: string, filter: WorkflowFilter, id?: string): Promise<WorkflowSummary | undefined> {
  const list = (await app.ctx.request<WorkflowSummary[] | null>(MethodWorkflows, {})) ?? [];
  if (id) return list.find((w) => w.id === id) ?? { ...(app.state.summary(id) ?? emptySummary(id)) };
  if (!list.length) {
    void vscode.window.showInformationMessage('Autarch: there are no workflows yet. Run "Autarch: New Workflow".');
    return undefined;
  }
  const items = workflowsFor(list, filter).map((w) => ({
    label: w.name,
    description: `${w.stage} · ${w.status}${w.pulses ? ` · ${w.pulsesDone}/${w.pulses} pulses` : ''}`,
    detail: w.task,
    wf: w,
  }));
  const pick = await vscode.window.showQuickPick(items, { title: `Autarch: ${title}`, matchOnDetail: true, ignoreFocusOut: true });
  return pick?.wf;
}

function emptySummary(id: string): WorkflowSummary {
  return { id, name: id, task: '', stage: '', status: '', branch: '', pulsesDone: 0, pulses: 0, tokens: 0, cost: 0, updatedAt: '' };
}

function gitUri(side: DiffSide): vscode.Uri {
  return vscode.Uri.from({ scheme: gitScheme, path: '/' + side.path, query: gitQuery(side.commit) });
}

/** Opens a diff: the multi-file changes editor when there are several files, else vscode.diff. */
async function openDiff(diff: PulseDiff | undefined): Promise<void> {
  const pairs = diff ? diffPairs(diff) : [];
  if (!diff || !pairs.length) {
    void vscode.window.showInformationMessage('Autarch: no changes in this diff.');
    return;
  }
  if (pairs.length > 1) {
    const resources = pairs.map((p) => [gitUri(p.right), gitUri(p.left), gitUri(p.right)]);
    try {
      await vscode.commands.executeCommand('vscode.changes', diff.title || 'Autarch changes', resources);
      return;
    } catch {
      // An editor without the changes editor: one diff per file below.
    }
  }
  for (const p of pairs.slice(0, 10)) {
    await vscode.commands.executeCommand('vscode.diff', gitUri(p.left), gitUri(p.right), p.title, { preview: pairs.length === 1 });
  }
  if (pairs.length > 10) void vscode.window.showInformationMessage(`Autarch: opened 10 of ${pairs.length} changed files.`);
}
