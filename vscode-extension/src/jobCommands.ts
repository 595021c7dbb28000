// The job palette commands: Start Job (input box for the task, quick pick
// for the mode) and Apply Job (fast-forward or one undoable edit, as a
// workflow is applied).
import * as vscode from 'vscode';
import type { Command } from './commands';
import { applicableJobs, jobModes, resumableJobs, waitingEscalations } from './jobs';
import {
  CommandAnswerEscalation,
  CommandApplyJob,
  CommandResumeJob,
  CommandStartJob,
  type AnswerEscalationParams,
  type ApplyJobParams,
  type ApplyWorkflowResult,
  type JobRef,
  type StartJobParams,
} from './lspext.gen';

export const jobCommands: Record<string, Command> = {
  'autarch.ui.startJob': async (app) => {
    const task = await vscode.window.showInputBox({
      title: 'Autarch: Start Job (1/2)',
      prompt: 'What should the job do? One agent works on its own ai/… branch until it commits, or asks you.',
      placeHolder: 'e.g. Fix the failing test in calc_test.go',
      ignoreFocusOut: true,
      validateInput: (v) => (v.trim() ? undefined : 'Describe the task.'),
    });
    if (task === undefined) return;
    const mode = await vscode.window.showQuickPick(jobModes, { title: 'Autarch: Start Job (2/2): mode', placeHolder: 'mechanic or genius', ignoreFocusOut: true });
    if (!mode) return;
    const params: StartJobParams = { task: task.trim(), mode: mode.mode };
    const ref = await app.ctx.executeCommand<JobRef>(CommandStartJob, [params]);
    await app.jobs.refresh();
    void vscode.window.showInformationMessage(`Autarch: job ${ref.name ?? ref.jobId} started (${mode.mode}); follow it in the side panel.`);
  },
  'autarch.ui.applyJob': async (app, id) => {
    await app.jobs.refresh();
    let job = typeof id === 'string' && id ? app.jobs.find(id) : undefined;
    if (!job) {
      const ready = applicableJobs(app.jobs.jobs);
      if (!ready.length) {
        void vscode.window.showInformationMessage('Autarch: no job has committed yet; start one with "Autarch: Start Job".');
        return;
      }
      const pick = await vscode.window.showQuickPick(
        ready.map((j) => ({ label: j.name, description: j.branch, detail: j.commits.map((c) => c.message.split('\n')[0]).join(' · '), job: j })),
        { title: 'Autarch: Apply Job', ignoreFocusOut: true },
      );
      if (!pick) return;
      job = pick.job;
    }
    const how = await vscode.window.showQuickPick(
      [
        { label: 'Fast-forward the current branch', mode: 'merge' },
        { label: 'Bring the changes into the working tree (undoable edit)', mode: 'edit' },
      ],
      { title: `Autarch: apply job ${job.name}`, ignoreFocusOut: true },
    );
    if (!how) return;
    const params: ApplyJobParams = { jobId: job.id, mode: how.mode };
    const res = await app.ctx.executeCommand<ApplyWorkflowResult>(CommandApplyJob, [params]);
    const show = res.applied ? vscode.window.showInformationMessage : vscode.window.showWarningMessage;
    void show(`Autarch: ${res.message}`);
  },
  'autarch.ui.answerJobReview': async (app) => {
    await app.jobs.refresh();
    const waiting = waitingEscalations(app.jobs.jobs);
    if (!waiting.length) {
      void vscode.window.showInformationMessage('Autarch: no job waits for a review.');
      return;
    }
    const pick = await vscode.window.showQuickPick(
      waiting.map((w) => ({ label: w.escalation.reason, description: `${w.job.name} · ${w.escalation.severity || 'medium'} severity`, detail: w.escalation.context || undefined, w })),
      { title: 'Autarch: Answer Job Review', ignoreFocusOut: true },
    );
    if (!pick) return;
    const answer = await vscode.window.showQuickPick([{ label: 'Approve', approved: true }, { label: 'Decline', approved: false }], {
      title: `Autarch: ${pick.w.escalation.reason}`,
      ignoreFocusOut: true,
    });
    if (!answer) return;
    const feedback = await vscode.window.showInputBox({ title: 'Autarch: feedback for the job (optional)', prompt: 'The agent gets this with your answer.', ignoreFocusOut: true });
    if (feedback === undefined) return;
    const params: AnswerEscalationParams = { jobId: pick.w.job.id, escalationId: pick.w.escalation.id, approved: answer.approved, feedback };
    await app.ctx.executeCommand(CommandAnswerEscalation, [params]);
    await app.jobs.refresh();
  },
  'autarch.ui.resumeJob': async (app) => {
    await app.jobs.refresh();
    const jobs = resumableJobs(app.jobs.jobs);
    if (!jobs.length) {
      void vscode.window.showInformationMessage('Autarch: no job is stopped, failed or waiting.');
      return;
    }
    const pick = await vscode.window.showQuickPick(
      jobs.map((j) => ({ label: j.name, description: j.status, detail: j.statusReason || undefined, job: j })),
      { title: 'Autarch: Resume Job', ignoreFocusOut: true },
    );
    if (!pick) return;
    const ref: JobRef = { jobId: pick.job.id, name: pick.job.name };
    await app.ctx.executeCommand(CommandResumeJob, [ref]);
    await app.jobs.refresh();
  },
};
