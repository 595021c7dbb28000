// The extension's surfaces over one Ctx: the handlers of the server's
// requests and notifications (questions, approvals, diagnostics, workflow
// events), the pending store, the side panel, the status bar and the inline
// review. No agent logic: the server decides, this renders and forwards.
import * as vscode from 'vscode';
import type { Ctx } from './ctx';
import { diagnosticsResult, normalizePath, type RawDiagnostic } from './diagnostics';
import { diffSides, isUnifiedDiff, noLinks } from './diff';
import {
  CommandAnswer,
  CommandDiscuss,
  CommandResumeWorkflow,
  CommandStopWorkflow,
  MethodApprove,
  MethodAskQuestions,
  MethodDiagnostics,
  MethodLanguageFeature,
  MethodFileAt,
  MethodFleetEvent,
  MethodJobEvent,
  MethodSwarmEvent,
  EventDryRunPlan,
  MethodWorkflow,
  MethodWorkflowEvent,
  type AnswerParams,
  type Approval,
  type AskQuestionsParams,
  type AskQuestionsResult,
  type DiagnosticsParams,
  type LanguageFeatureParams,
  type LanguageFeatureResult,
  type DiagnosticsResult,
  type DiscussParams,
  type FileAtParams,
  type FileAtResult,
  type FleetEvent,
  type JobEvent,
  type SwarmEvent,
  type Verdict,
  type WorkflowDetail,
  type WorkflowEvent,
  type WorkflowRef,
} from './lspext.gen';
import { fleetConfigured } from './config';
import { fleetOpCommands } from './fleetCommands';
import { JobList, jobOpCommands, mergeActivity } from './jobs';
import { RunList } from './runs';
import { featureCommand, toEditorLocations } from './languageFeatures';
import { SwarmList } from './swarm';
import { SwarmView } from './swarmView';
import { Panel, type PanelHost } from './panel';
import { panelCommands, type FromWebview, type WorkflowOp } from './panelHtml';
import type { PanelModel, StoredItem } from './panelView';
import { PendingStore, type PendingApproval, type PendingQuestions } from './pending';
import { composerHint, composerTarget, gitScheme, parseGitUri } from './picks';
import { promptApproval, promptFeedback, PromptQueue, promptQuestions } from './prompts';
import { checkAnswers, decodePending, textAnswer } from './questions';
import { receiptContent } from './revert';
import { receiptScheme } from './revertView';
import { restoreCandidates, threadsToShow } from './review';
import { ReviewComments, resolveWorkspaceFile, reviewUri, workspaceRelative } from './reviewComments';
import { WorkflowState } from './state';
import { statusBarText } from './status';


/** The workspace memento key of the discussion kept across reloads. */
const discussionKey = 'autarch.discussion';

/** The scheme of an edit approval's before and after documents (read-only). */
const approvalScheme = 'autarch-approval';

export class App implements vscode.Disposable, PanelHost {
  readonly pending = new PendingStore();
  readonly state: WorkflowState;
  readonly panel: Panel;
  readonly review: ReviewComments;
  readonly jobs: JobList;
  readonly swarms: SwarmList;
  /** The one list of runs (autarch/runs) the panel shows. */
  readonly runs: RunList;
  private readonly prompts = new PromptQueue();
  private readonly statusItem: vscode.StatusBarItem;
  private readonly disposables: vscode.Disposable[] = [];
  private wasRunning = false;
  /** The before and after texts of edit approvals' diff editors, by URI. */
  private readonly approvalTexts = new Map<string, string>();

  constructor(readonly ctx: Ctx, ext: vscode.ExtensionContext) {
    this.state = new WorkflowState((method, params) => ctx.request(method, params));
    this.jobs = new JobList((method, params) => ctx.request(method, params));
    this.swarms = new SwarmList((method, params) => ctx.request(method, params));
    this.runs = new RunList((method, params) => ctx.request(method, params));
    const swarmView = new SwarmView({ swarms: this.swarms, executeCommand: (c, a) => ctx.executeCommand(c, a) });
    this.disposables.push(swarmView, this.swarms, vscode.window.registerWebviewViewProvider(SwarmView.viewId, swarmView));
    this.panel = new Panel(this);
    this.review = new ReviewComments(ext.extensionUri);
    this.statusItem = vscode.window.createStatusBarItem('autarch.status', vscode.StatusBarAlignment.Left, 10);
    this.statusItem.name = 'Autarch';
    this.statusItem.command = `${Panel.viewId}.focus`;
    this.statusItem.show();
    this.disposables.push(
      this.statusItem,
      this.review,
      vscode.window.registerWebviewViewProvider(Panel.viewId, this.panel),
      vscode.workspace.registerTextDocumentContentProvider(gitScheme, { provideTextDocumentContent: (uri) => this.fileAt(uri) }),
      vscode.workspace.registerTextDocumentContentProvider(approvalScheme, { provideTextDocumentContent: (uri) => this.approvalTexts.get(uri.toString()) ?? '' }),
      vscode.workspace.registerTextDocumentContentProvider(receiptScheme, { provideTextDocumentContent: (uri) => receiptContent(this, uri) }),
      ctx.onChange(() => this.onServerChange()),
      ctx.onStop(() => this.pending.clear()),
    );
    this.pending.onChange(() => this.changed());
    // The discussion survives a window reload (the workspace's memento keeps its last messages).
    this.state.restoreDiscussion(ext.workspaceState.get(discussionKey));
    let keptCount = this.state.discussion.length;
    this.state.onChange(() => {
      this.showReviewThreads();
      this.changed();
      if (this.state.discussion.length !== keptCount) {
        keptCount = this.state.discussion.length;
        void ext.workspaceState.update(discussionKey, this.state.keptDiscussion());
      }
    });
    this.disposables.push(this.jobs.onChange(() => this.changed()), this.jobs, this.runs.onChange(() => this.changed()), this.runs.onChange(() => this.announceFleetQuestions()), this.runs);
    // The list of runs follows every kind's typed events (and the workflows' list, refreshed on theirs).
    const offState = this.state.onChange(() => this.runs.scheduleRefresh());
    this.disposables.push({ dispose: offState }, this.jobs.onChange(() => this.runs.scheduleRefresh()), this.swarms.onChange(() => this.runs.scheduleRefresh()));

    ctx.handleRequest<AskQuestionsParams, AskQuestionsResult>(MethodAskQuestions, (p, token) => this.onAskQuestions(p, token));
    ctx.handleRequest<Approval, Verdict>(MethodApprove, (p, token) => this.onApprove(p, token));
    ctx.handleRequest<DiagnosticsParams, DiagnosticsResult>(MethodDiagnostics, (p) => collectDiagnostics(p));
    ctx.handleRequest<LanguageFeatureParams, LanguageFeatureResult>(MethodLanguageFeature, (p) => editorLanguageFeature(p));
    ctx.handleNotification<WorkflowEvent>(MethodWorkflowEvent, (ev) => {
      if (ev && typeof ev === 'object') this.state.onEvent(ev);
      // A dry run that ended keeps nothing to answer later (its workflow lived in a temporary store).
      if (ev?.kind === EventDryRunPlan && ev.dryRun?.ended && ev.workflowId) this.pending.dropWorkflow(ev.workflowId, 'the dry run ended');
    });
    ctx.handleNotification<JobEvent>(MethodJobEvent, (ev) => this.jobs.onEvent(ev));
    ctx.handleNotification<SwarmEvent>(MethodSwarmEvent, (ev) => this.swarms.onEvent(ev));
    ctx.handleNotification<FleetEvent>(MethodFleetEvent, (ev) => this.onFleetEvent(ev));
    this.changed();
  }

  /** Fleet runs that said they ask something, to announce once the list of runs has caught up. */
  private readonly fleetAsked = new Set<string>();
  /** The question last announced per fleet run. */
  private readonly fleetAnnounced = new Map<string, string>();

  /** A fleet run's event: the list of runs follows; a question it asks is announced once the list shows it still waits. */
  private onFleetEvent(ev: FleetEvent): void {
    if (ev?.kind === 'prompt' && ev.id) this.fleetAsked.add(ev.id);
    this.runs.scheduleRefresh();
  }

  /**
   * Announces the questions fleet runs wait on (an answer box is on their rows too). Only after the
   * list caught up, so that the replay of a run's earlier events announces nothing already answered.
   */
  private announceFleetQuestions(): void {
    for (const id of this.fleetAsked) {
      const r = this.runs.find(id);
      if (!r?.prompt) continue;
      this.fleetAsked.delete(id);
      if (this.fleetAnnounced.get(id) === r.prompt) continue;
      this.fleetAnnounced.set(id, r.prompt);
      void vscode.window.showInformationMessage(noLinks(`Autarch: fleet run ${r.name} asks: ${r.prompt}`), 'Answer…', 'Show in Panel').then((choice) => {
        if (choice === 'Answer…') return vscode.commands.executeCommand(fleetOpCommands.answer, id);
        if (choice === 'Show in Panel') return this.panel.reveal();
        return undefined;
      });
    }
    if (this.runs.loaded) for (const id of this.fleetAsked) if (!this.runs.find(id)?.prompt) this.fleetAsked.delete(id);
  }

  // ---- server → client requests ----

  private onAskQuestions(p: AskQuestionsParams, token: vscode.CancellationToken): Promise<AskQuestionsResult> {
    const questions = Array.isArray(p?.questions) ? p.questions : [];
    if (!questions.length) return Promise.resolve({ answers: [] });
    const { id, result } = this.pending.addQuestions({ ...p, questions });
    token.onCancellationRequested(() => this.pending.drop(id));
    if (p.workflowId) this.state.scheduleRefresh();
    void this.prompts.run(() => this.askNow(id)).catch((err) => this.ctx.output.appendLine(`questions: ${String(err)}`));
    return result;
  }

  private onApprove(a: Approval, token: vscode.CancellationToken): Promise<Verdict> {
    const { id, result } = this.pending.addApproval({ ...a, title: a?.title || 'Approve?' });
    token.onCancellationRequested(() => this.pending.drop(id));
    if (a.workflowId) this.state.scheduleRefresh();
    if (a.jobId) this.jobs.scheduleRefresh();
    const item = this.pending.get(id) as PendingApproval;
    const showDetails = () => {
      void this.showPending(id);
      if (isUnifiedDiff(a.detail)) void this.showApprovalDiff(id, a.detail).catch((err) => this.ctx.output.appendLine(`approval diff: ${String(err)}`));
    };
    void promptApproval(this.pending, item, showDetails).catch((err) => this.ctx.output.appendLine(`approval: ${String(err)}`));
    return result;
  }

  /** Shows the QuickPick/InputBox flow of pending questions (again). */
  async askNow(id: string): Promise<boolean> {
    const item = this.pending.get(id);
    if (item?.kind !== 'questions') return false;
    return promptQuestions(this.pending, item);
  }

  /** Reveals a pending item in the side panel, selecting its workflow. */
  async showPending(id: string): Promise<void> {
    const item = this.pending.get(id);
    if (item?.workflowId && item.workflowId !== this.state.selected) void this.state.select(item.workflowId).catch(() => undefined);
    await this.panel.reveal(id);
  }

  /** Asks the user to pick one of the open questions or approvals. */
  async pickPending<K extends 'questions' | 'approval'>(kind: K): Promise<(K extends 'questions' ? PendingQuestions : PendingApproval) | undefined> {
    const items = this.pending.list(kind);
    if (!items.length) {
      void vscode.window.showInformationMessage(kind === 'approval' ? 'Autarch: nothing waits for your approval.' : 'Autarch: no questions wait for an answer.');
      return undefined;
    }
    type R = K extends 'questions' ? PendingQuestions : PendingApproval;
    if (items.length === 1) return items[0] as R;
    const picks = items.map((i) => ({
      label: i.kind === 'approval' ? i.approval.title : i.title || i.questions[0]?.prompt || 'Questions',
      description: this.workflowName(i.workflowId),
      detail: i.kind === 'approval' ? (i.approval.reason ? `Why: ${i.approval.reason}` : undefined) : i.questions.map((q) => q.prompt).join(' · '),
      item: i,
    }));
    const pick = await vscode.window.showQuickPick(picks, { title: kind === 'approval' ? 'Autarch: pending approvals' : 'Autarch: pending questions', ignoreFocusOut: true });
    return pick?.item as R | undefined;
  }

  private workflowName(id: string | undefined): string {
    return id ? (this.state.summary(id)?.name ?? id) : '';
  }

  // ---- the side panel ----

  model(): PanelModel {
    const sel = this.state.selected;
    const detail = sel && this.state.detail?.summary.id === sel ? this.state.detail : undefined;
    const live = this.pending.list();
    let stored: StoredItem[] = [];
    // A running workflow's stored items are the live requests themselves.
    if (detail && detail.summary.status !== 'Active' && !live.some((p) => p.workflowId === sel)) {
      stored = (detail.pending ?? []).map((p) => ({ workflowId: sel, item: decodePending(p) }));
    }
    return {
      serverState: this.ctx.state,
      status: this.ctx.status,
      project: this.ctx.project,
      error: this.ctx.lastError ?? this.state.listError,
      workflows: this.state.workflows,
      selected: sel,
      detail,
      detailError: sel ? this.state.detailError : undefined,
      pending: live,
      stored,
      dryRuns: this.state.dryRunPlans(),
      activity: mergeActivity(this.state.activity(sel), this.jobs.activity()),
      messages: sel ? (detail?.messages ?? []) : this.state.discussion,
      review: sel ? (detail?.review ?? undefined) : this.state.branchReview,
      jobs: this.jobs.jobs,
      jobsError: this.jobs.error,
      runs: this.runs.loaded ? this.runs.runs : undefined,
      runsError: this.runs.error,
      fleet: fleetConfigured((k) => vscode.workspace.getConfiguration('autarch').get(k)),
    };
  }

  composerHint(): string {
    const target = composerTarget(this.pending.list(), this.state.selected);
    if (target) return composerHint({ answer: target.title || target.questions[0].prompt, workflow: this.workflowName(target.workflowId) });
    const reply = this.storedReply();
    if (reply) return composerHint({ answer: reply.item.kind === 'questions' ? reply.item.questions[0].prompt : '' });
    return composerHint({ selected: this.workflowName(this.state.selected) });
  }

  /** A stored free-text question (a "reply") of the selected workflow, when shown. */
  private storedReply(): StoredItem | undefined {
    return this.model().stored.find((s) => s.item.kind === 'questions' && s.item.questions.length === 1 && s.item.questions[0].type === 'free_text');
  }

  onVisible(): void {
    void this.ctx.refreshStatus().catch(() => undefined);
    void this.state.refresh().catch(() => undefined);
    void this.jobs.refresh();
    void this.runs.refresh();
  }

  async onMessage(msg: FromWebview): Promise<void> {
    switch (msg.type) {
      case 'ready':
        if (msg.selected !== undefined && msg.selected !== this.state.selected && (msg.selected === '' || this.state.summary(msg.selected) || !this.state.workflows.length)) {
          await this.state.select(msg.selected).catch(() => undefined);
        } else if (this.ctx.running) {
          await this.state.refresh().catch(() => undefined);
        }
        // A panel restored by a reload shows its jobs at once, not once it is shown again.
        if (this.ctx.running) await Promise.all([this.jobs.refresh(), this.runs.refresh()]);
        return;
      case 'select':
        await this.state.select(msg.workflowId);
        return;
      case 'command':
        if (panelCommands.has(msg.command)) await vscode.commands.executeCommand(msg.command);
        return;
      case 'workflow':
        return this.workflowOp(msg.op, msg.workflowId, msg.pulseId);
      case 'job':
        // The palette command, with the job preselected.
        await vscode.commands.executeCommand(jobOpCommands[msg.op], msg.jobId);
        return;
      case 'fleet':
        await vscode.commands.executeCommand(fleetOpCommands[msg.op], msg.runId, msg.text);
        return;
      case 'open':
        // A comment on an unapplied branch opens the reviewed copy its thread and Problems entry use (the same tab), not the user's file.
        if (msg.uri) await openAt(reviewUri(vscode.Uri.parse(msg.uri)), msg.start, msg.end);
        else await openWorkspaceFile(msg.file, msg.start, msg.end);
        return;
      case 'draft':
        this.pending.setDraft(msg.pendingId, msg.index, { values: msg.values });
        return;
      case 'answer':
        return msg.stored ? this.answerStored(msg.workflowId ?? this.state.selected, msg.pendingId, msg.answers) : this.answerLive(msg.pendingId, msg.answers);
      case 'decide':
        return this.decide(msg.pendingId, msg.decision, msg.feedback);
      case 'send':
        return this.send(msg.text);
    }
  }

  private answerLive(id: string, answers: { values: string[] }[]): void {
    const err = this.pending.answer(id, answers);
    if (err) void vscode.window.showWarningMessage(noLinks(`Autarch: ${err}`));
  }

  /** Answers a question the server stored for a waiting workflow (autarch.answer resumes it). */
  private async answerStored(workflowId: string, pendingId: string, answers: { values: string[] }[]): Promise<void> {
    const stored = this.model().stored.find((s) => s.item.id === pendingId);
    if (stored?.item.kind === 'questions') {
      const err = checkAnswers(stored.item.questions, answers);
      if (err) {
        void vscode.window.showWarningMessage(noLinks(`Autarch: ${err}`));
        return;
      }
    }
    const params: AnswerParams = { workflowId, pendingId, answers };
    await this.ctx.executeCommand(CommandAnswer, [params]);
    await this.state.refresh();
  }

  /** Decides an approval; a rejection without feedback asks for it (unless askFeedback is false). */
  async decide(id: string, decision: string, feedback?: string, askFeedback = true): Promise<void> {
    const item = this.pending.get(id);
    if (item?.kind !== 'approval') {
      const stored = this.model().stored.find((s) => s.item.id === id);
      if (stored?.item.kind === 'approval' && (decision === 'approve' || decision === 'reject')) {
        if (decision === 'reject' && !feedback?.trim() && askFeedback) {
          feedback = await promptFeedback(stored.item.approval.title);
          if (feedback === undefined) return;
        }
        // A card left waiting by a restart: the server decides it and resumes the workflow.
        const params: AnswerParams = { workflowId: stored.workflowId, pendingId: id, verdict: { decision, feedback } };
        await this.ctx.executeCommand(CommandAnswer, [params]);
        await this.state.refresh();
        return;
      }
      void vscode.window.showInformationMessage('Autarch: this was already decided.');
      return;
    }
    if (decision === 'reject' && !feedback?.trim() && askFeedback) {
      feedback = await promptFeedback(item.approval.title);
      if (feedback === undefined) return; // closed: still pending
    }
    if (!this.pending.decide(id, { decision, feedback })) void vscode.window.showWarningMessage('Autarch: this could not be decided (already decided, or not offered).');
  }

  /** The message box: answers a pending free-text question, else talks to the discussion. */
  async send(text: string): Promise<void> {
    const t = text.trim();
    if (!t) return;
    const target = composerTarget(this.pending.list(), this.state.selected);
    if (target) {
      this.answerLive(target.id, [textAnswer(t)]);
      return;
    }
    const reply = this.storedReply();
    if (reply) {
      await this.answerStored(reply.workflowId, reply.item.id, [textAnswer(t)]);
      return;
    }
    try {
      await this.discuss(t);
    } catch (err) {
      this.panel.restoreDraft(text);
      throw err;
    }
  }

  /** Sends a message to the discussion agent; its reply arrives as a workflow event. */
  async discuss(message: string): Promise<void> {
    if (this.state.selected !== '') await this.state.select('').catch(() => undefined);
    this.state.addUserMessage(message);
    const params: DiscussParams = { message };
    await this.ctx.executeCommand(CommandDiscuss, [params]);
  }

  private async workflowOp(op: WorkflowOp, workflowId: string, pulseId?: string): Promise<void> {
    if (op === 'revert' || op === 'redo' || op === 'receipt') {
      const command = { revert: 'autarch.ui.revertPulse', redo: 'autarch.ui.redoPulse', receipt: 'autarch.ui.showReceipt' }[op];
      await vscode.commands.executeCommand(command, workflowId, pulseId ?? '');
      return;
    }
    if (op === 'apply') {
      await vscode.commands.executeCommand('autarch.ui.applyWorkflow', workflowId);
      return;
    }
    if (op === 'diff') {
      await vscode.commands.executeCommand('autarch.ui.pulseDiff', workflowId, pulseId ?? '');
      return;
    }
    const ref: WorkflowRef = { workflowId, name: this.state.summary(workflowId)?.name };
    await this.ctx.executeCommand(op === 'stop' ? CommandStopWorkflow : CommandResumeWorkflow, [ref]);
    await this.state.refresh();
  }

  // ---- the rest ----

  private showReviewThreads(): void {
    const sel = this.state.selected;
    const detail = sel && this.state.detail?.summary.id === sel ? this.state.detail : undefined;
    const r = sel ? detail?.review : this.state.branchReview;
    const comments = threadsToShow(r);
    if (comments) this.review.show(comments);
  }

  /**
   * Shows the latest review's inline threads when the server starts (on
   * activation, after a reload), before the panel opens; the server shows
   * the same review's Problems.
   */
  private async restoreReviewThreads(): Promise<void> {
    await this.state.refresh();
    if (this.review.size > 0) return;
    for (const id of restoreCandidates(this.state.workflows)) {
      const d = await this.ctx.request<WorkflowDetail>(MethodWorkflow, { workflowId: id } satisfies WorkflowRef);
      if (d?.review?.comments?.length) {
        if (this.review.size === 0) this.review.show(d.review.comments);
        return;
      }
    }
  }

  private onServerChange(): void {
    const running = this.ctx.running;
    if (running && !this.wasRunning) {
      void this.restoreReviewThreads().catch((err) => this.ctx.output.appendLine(`review threads not restored: ${String(err)}`));
      // The lists fetched while the server was not running (Restricted Mode, a restart) hold its error: fetch them again.
      void this.jobs.refresh();
      void this.swarms.refresh();
      void this.runs.refresh();
    }
    this.wasRunning = running;
    this.changed();
  }

  private changed(): void {
    const wf = this.state.activeWorkflow();
    const stage = wf ? (this.state.lastStage.get(wf.id) ?? wf.stage) : '';
    const s = statusBarText(this.ctx.state, wf ? { name: wf.name, stage, status: wf.status } : undefined, this.pending.size);
    this.statusItem.text = s.text;
    this.statusItem.tooltip = s.tooltip;
    this.panel.update();
  }

  /** Opens an edit approval's change in a diff editor beside the file: before and after, read-only documents of the approvalScheme. */
  private async showApprovalDiff(id: string, diff: string): Promise<void> {
    const sides = diffSides(diff);
    if (!sides) return;
    const uri = (side: string) => vscode.Uri.from({ scheme: approvalScheme, path: `/${sides.path}`, query: `id=${encodeURIComponent(id)}&side=${side}` });
    const left = uri('before');
    const right = uri('after');
    this.approvalTexts.set(left.toString(), sides.before);
    this.approvalTexts.set(right.toString(), sides.after);
    // Keep the texts of the last few approvals only.
    for (const k of [...this.approvalTexts.keys()].slice(0, Math.max(0, this.approvalTexts.size - 20))) this.approvalTexts.delete(k);
    const title = `${sides.path} (proposed edit${sides.created ? ', new file' : ''})`;
    await vscode.commands.executeCommand('vscode.diff', left, right, title, { preview: true, preserveFocus: true, viewColumn: vscode.ViewColumn.Beside });
  }

  private async fileAt(uri: vscode.Uri): Promise<string> {
    const p = parseGitUri(uri.path, uri.query);
    if (!p) return '';
    const params: FileAtParams = { commit: p.commit, path: p.path };
    const res = await this.ctx.request<FileAtResult>(MethodFileAt, params);
    return res?.missing ? '' : (res?.text ?? '');
  }

  dispose(): void {
    this.state.dispose();
    for (const d of this.disposables) d.dispose();
  }
}


/** Opens a workspace file and selects 1-based lines start..end (0: the top). */
export async function openWorkspaceFile(file: string, start: number, end: number): Promise<void> {
  const uri = resolveWorkspaceFile(file);
  if (!uri) throw new Error(`No workspace folder holds ${file}.`);
  await openAt(uri, start, end);
}

/** Shows a document with lines start..end (1-based) selected. */
async function openAt(uri: vscode.Uri, start: number, end: number): Promise<void> {
  const doc = await vscode.workspace.openTextDocument(uri);
  const first = Math.min(Math.max(0, start - 1), Math.max(0, doc.lineCount - 1));
  const last = Math.min(Math.max(first, end - 1), Math.max(0, doc.lineCount - 1));
  const range = new vscode.Range(first, 0, last, doc.lineAt(last).range.end.character);
  await vscode.window.showTextDocument(doc, { selection: range, preview: true });
}

/** The editor's own definitions or references for autarch/languageFeature (the discussion agent's go_to_definition and find_references); an error leaves them to Autarch's language servers. */
export async function editorLanguageFeature(params: LanguageFeatureParams): Promise<LanguageFeatureResult> {
  const command = featureCommand(params?.feature);
  const uri = typeof params?.path === 'string' ? resolveWorkspaceFile(params.path) : undefined;
  if (!command || !uri || typeof params.line !== 'number' || typeof params.character !== 'number') {
    throw new Error(`autarch/languageFeature: no feature ${String(params?.feature)} at ${String(params?.path)}`);
  }
  const raw = await vscode.commands.executeCommand<unknown>(command, uri, new vscode.Position(params.line, params.character));
  return { locations: toEditorLocations(raw) };
}

/** The editor's diagnostics for autarch/diagnostics; requested files that are not open are opened (not shown) first so that language servers check them. */
export async function collectDiagnostics(params: DiagnosticsParams): Promise<DiagnosticsResult> {
  const paths = Array.isArray(params?.paths) ? params.paths.filter((p): p is string => typeof p === 'string') : [];
  await openForDiagnostics(paths);
  const raw: RawDiagnostic[] = [];
  for (const [uri, diags] of vscode.languages.getDiagnostics()) {
    if (uri.scheme !== 'file') continue;
    const rel = workspaceRelative(uri);
    if (rel === undefined || rel.startsWith('..')) continue;
    for (const d of diags) {
      raw.push({ file: rel, line: d.range.start.line, character: d.range.start.character, severity: d.severity, message: d.message, source: d.source });
    }
  }
  return diagnosticsResult(raw, { paths });
}

async function openForDiagnostics(paths: string[]): Promise<void> {
  const open = new Set(vscode.workspace.textDocuments.map((d) => d.uri.toString()));
  const uris: vscode.Uri[] = [];
  for (const p of paths.slice(0, 20)) {
    const rel = normalizePath(p);
    if (!rel || !/\.[^/]+$/.test(rel)) continue; // directories: whatever is known
    const uri = resolveWorkspaceFile(rel);
    if (!uri || open.has(uri.toString())) continue;
    try {
      const st = await vscode.workspace.fs.stat(uri);
      if (st.type & vscode.FileType.File) uris.push(uri);
    } catch {
      // not there: nothing to check
    }
  }
  if (!uris.length) return;
  const changed = new Promise<void>((resolve) => {
    const sub = vscode.languages.onDidChangeDiagnostics((e) => {
      if (e.uris.some((u) => uris.some((w) => w.toString() === u.toString()))) {
        sub.dispose();
        resolve();
      }
    });
    setTimeout(() => {
      sub.dispose();
      resolve();
    }, 2000);
  });
  await Promise.all(uris.map((u) => vscode.workspace.openTextDocument(u).then(undefined, () => undefined)));
  await changed;
}
