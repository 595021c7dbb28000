// The side panel: a webview view of the workflows, the selected workflow's
// detail, what waits for the user, the activity feed and the conversation.
// The HTML comes from panelView.ts (pure, escaped) and the page's script
// from panelHtml.ts; this file connects them to VS Code.
//
// DOM contract (stable; the end-to-end tests assert on it):
//   [data-section=pending|dryrun|workflows|jobs|workflow|activity|conversation|server]  the re-rendered sections
//   #dry-run-plans > .dryrun[data-workflow][data-ended]   a dry run's plan ("Dry run plan"): .dryrun-count .dryrun-outcome
//                    .dryrun-stage[data-stage] > ol.dryrun-entries > li.dryrun-entry[data-tool][data-path?] .dryrun-action .dryrun-reason
//                    ul.dryrun-files > li.dryrun-file[data-path]
//   #jobs > li.job-item[data-id][data-status]  .job-actions > button[data-action=job][data-op]  (jobs.ts lists its classes)
//   #workflows: the one list of runs (autarch/runs; runs.ts), every kind with .run-kind[data-kind] (badge), .wf-status,
//                .run-branch, .run-when; li.workflow-item.discussion[data-id=""] the discussion (always first);
//     li.workflow-item[data-id][data-status][data-stage][data-kind=workflow]   a workflow; .selected
//     li.run-item[data-kind=job][data-id][data-status] .run-actions > button.run-job-<op>[data-action=job][data-op]
//     li.run-item[data-kind=swarm] button.run-swarm-view (the Swarm view)
//     li.run-item[data-fleet=true][data-kind][data-id][data-status][data-waiting?] .run-fleet .run-worker
//        .run-question > pre.run-context .run-prompt textarea.run-answer-text button.run-answer[data-action=fleet][data-op=answer]
//        button.run-apply[data-action=fleet][data-op=apply]
//   #new-workflow, #start-job, #run-in-background (only with autarch.fleet.natsUrl)   buttons: New Workflow, Start Job, Run in Background
//   #workflow-header[data-id][data-status]  .wf-stop .wf-resume .wf-diff .wf-apply  (buttons)
//   #stage-timeline > li.stage[data-stage][data-state=done|current|todo]
//   #scope, #research, #plan : details.card[data-status] > .card-title .card-status .markdown .card-feedback
//   #pulses > li.pulse-item[data-id][data-status]  .pulse-title .pulse-status .pulse-commit .pulse-stats
//             .pulse-recovery .pulse-unresolved li .pulse-failure .pulse-diff
//             [data-reverted] .pulse-reverted .pulse-revert .pulse-redo
//   #review[data-status] .review-recommendation[data-recommendation] .review-summary
//   #review-comments > li.comment[data-id][data-severity=high|medium|low][data-type=line|file|review][data-pre-existing]
//             .comment-label ("High · bug · new") .comment-location .comment-description .comment-suggestion
//   #usage .usage-tokens .usage-cost
//   .pending-item[data-id][data-kind][data-workflow][data-stored?]   a question set or an approval waiting for the user
//     .pending-approval: .pending-title .pending-reason ("Why: …") .pending-detail .pending-feedback (textarea)
//                        .pending-approve .pending-reject ("Request Changes") .pending-always .pending-abort (when offered)
//     .pending-questions: .question[data-q][data-type] .question-prompt
//                        single_select: button.pending-option[data-value] (.selected; submits at once when it is the only question)
//                        multi_select: input.pending-check[value]; ranked: ol.pending-ranked > li.ranked-option[data-value] .rank-up .rank-down
//                        free_text: textarea.pending-text;  button.pending-submit (absent for a lone single_select)
//     stored items (asked before a restart): [data-stored="1"], .pending-resume
//   #activity > li.activity-item[data-tool][data-failed][data-stage]  .activity-tool .activity-reason .activity-meta
//               a job's entries: .job-activity[data-job] .activity-job ("job <name>"); its escalations: .escalation[data-tool=escalation]
//   #messages > .message[data-role][data-stage] .message-text
//   #message-box (textarea; Ctrl+Enter sends), #send, #composer-hint (what Send will do)
//   [data-testid=server-state|model|status-message|workspace]  server status (inside #server-status)
//   #project-config [data-testid=mcp-servers] > li.mcp-server[data-name][data-state]  MCP servers (autarch/project)
//                   [data-testid=project-rules] > li.rule-file[data-path]; .warning[data-testid=project-warning]
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { panelPage, parseWebviewMessage, type FromWebview } from './panelHtml';
import { renderPanel, type PanelModel } from './panelView';
import { escapeHtml } from './status';

export interface PanelHost {
  model(): PanelModel;
  composerHint(): string;
  onMessage(msg: FromWebview): Promise<void>;
  onVisible(): void;
}

export class Panel implements vscode.WebviewViewProvider {
  static readonly viewId = 'autarch.panel';
  private view: vscode.WebviewView | undefined;
  private ready = false;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly host: PanelHost) {}

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    this.ready = false;
    view.webview.options = { enableScripts: true, localResourceRoots: [] };
    const nonce = randomBytes(16).toString('base64url');
    view.webview.html = panelPage(nonce, renderPanel(this.host.model()), escapeHtml(this.host.composerHint()));
    view.webview.onDidReceiveMessage(async (raw: unknown) => {
      const msg = parseWebviewMessage(raw);
      if (!msg) return;
      if (msg.type === 'ready') this.ready = true;
      try {
        await this.host.onMessage(msg);
      } catch (err) {
        void vscode.window.showErrorMessage(`Autarch: ${err instanceof Error ? err.message : String(err)}`);
      }
      if (msg.type === 'ready') this.flush();
    });
    view.onDidChangeVisibility(() => {
      if (view.visible) this.host.onVisible();
    });
    view.onDidDispose(() => {
      if (this.view === view) this.view = undefined;
    });
  }

  get visible(): boolean {
    return !!this.view?.visible;
  }

  /** Re-renders soon (coalesces bursts of changes). */
  update(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, 30);
  }

  private flush(): void {
    if (!this.view || !this.ready) return;
    const m = this.host.model();
    void this.view.webview.postMessage({ type: 'render', sections: renderPanel(m), selected: m.selected, hint: this.host.composerHint() });
  }

  /** Puts text back into the message box (sending failed). */
  restoreDraft(text: string): void {
    void this.view?.webview.postMessage({ type: 'restoreDraft', text });
  }

  /** Reveals the panel and scrolls to a pending item. */
  async reveal(pendingId?: string): Promise<void> {
    await vscode.commands.executeCommand(`${Panel.viewId}.focus`);
    if (pendingId) {
      this.flush();
      setTimeout(() => void this.view?.webview.postMessage({ type: 'focusPending', pendingId }), 100);
    }
  }
}
