// The job palette commands: Start Job (input box for the task, quick pick
// for the mode), Stop Job, Resume Job, Answer Job Review and Apply Job
// (fast-forward or one undoable edit, as a workflow is applied). The side
// panel's job buttons run the same commands with the job's id as their
// argument: the job is then preselected instead of picked.
import * as vscode from 'vscode';
import type { App } from './app';
import { askTask } from './ask';
import type { Command } from './commands';
import { applicableJobs, guidancePrompt, jobModes, liveEscalation, resumableJobs, resumeRef, stoppableJobs, waitingEscalations } from './jobs';
import {
  CommandAnswerEscalation,
  CommandApplyJob,
  CommandResumeJob,
  CommandStartJob,
  CommandStopJob,
  DecisionApprove,
  DecisionReject,
  type AnswerEscalationParams,
  type ApplyJobParams,
  type ApplyWorkflowResult,
  type JobRef,
  type JobSummary,
  type StartJobParams,
} from './lspext.gen';

const arg = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);

/**
 * The job a command works on: the one named by id (a panel button) when it is one of the candidates,
 * else a QuickPick of the candidates. Says what is wrong (and what to do) when there is none.
 */
async function pickJob(app: App, id: string | undefined, candidates: (jobs: JobSummary[]) => JobSummary[], what: { title: string; none: string; not: string }): Promise<JobSummary | undefined> {
  await app.jobs.refresh();
  const jobs = candidates(app.jobs.jobs);
  if (id) {
    const named = app.jobs.find(id);
    if (named && jobs.includes(named)) return named;
    void vscode.window.showInformationMessage(named ? `Autarch: job ${named.name} is ${named.status}: ${what.not}` : `Autarch: no job ${id} in the list any more; the side panel shows the current jobs.`);
    return undefined;
  }
  if (!jobs.length) {
    void vscode.window.showInformationMessage(`Autarch: ${what.none}`);
    return undefined;
  }
  const pick = await vscode.window.showQuickPick(
    jobs.map((j) => ({ label: j.name, description: `${j.status}${j.branch ? ` · ${j.branch}` : ''}`, detail: j.statusReason || j.task, job: j })),
    { title: `Autarch: ${what.title}`, ignoreFocusOut: true },
  );
  return pick?.job;
}

/** Sends a server command that takes a JobRef, then refreshes the list. */
async function sendRef(app: App, command: string, job: JobSummary): Promise<void> {
  const ref: JobRef = { jobId: job.id, name: job.name };
  await app.ctx.executeCommand(command, [ref]);
  await app.jobs.refresh();
}

export const jobCommands: Record<string, Command> = {
  'autarch.ui.startJob': async (app) => {
    const task = await askTask('Autarch: Start Job (1/2)', 'What should the job do? One agent works on its own ai/… branch until it commits, or asks you.', 'e.g. Fix the failing test in calc_test.go');
    if (task === undefined) return;
    const mode = await vscode.window.showQuickPick(jobModes, { title: 'Autarch: Start Job (2/2): mode', placeHolder: 'mechanic or genius', ignoreFocusOut: true });
    if (!mode) return;
    const params: StartJobParams = { task, mode: mode.mode };
    const ref = await app.ctx.executeCommand<JobRef>(CommandStartJob, [params]);
    await app.jobs.refresh();
    void vscode.window.showInformationMessage(`Autarch: job ${ref.name ?? ref.jobId} started (${mode.mode}); follow it in the side panel.`);
  },
  'autarch.ui.applyJob': async (app, id) => {
    const job = await pickJob(app, arg(id), applicableJobs, {
      title: 'Apply Job',
      none: 'no job has committed yet; start one with "Autarch: Start Job".',
      not: 'it has no commit to apply yet; resume it, or wait until it commits.',
    });
    if (!job) return;
    const how = await vscode.window.showQuickPick(
      [
        { label: 'Fast-forward the current branch', description: job.branch, mode: 'merge' },
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
  'autarch.ui.answerJobReview': async (app, id) => {
    await app.jobs.refresh();
    const ref = arg(id);
    const named = ref ? app.jobs.find(ref) : undefined;
    if (ref && !named) {
      void vscode.window.showInformationMessage(`Autarch: no job ${ref} in the list any more; the side panel shows the current jobs.`);
      return;
    }
    const waiting = waitingEscalations(named ? [named] : app.jobs.jobs);
    if (!waiting.length) {
      void vscode.window.showInformationMessage(named ? `Autarch: job ${named.name} has no review waiting (already answered?); the side panel shows its state.` : 'Autarch: no job waits for a review.');
      return;
    }
    const pick =
      named && waiting.length === 1
        ? { w: waiting[0] }
        : await vscode.window.showQuickPick(
            waiting.map((w) => ({ label: w.escalation.reason, description: `${w.job.name} · ${w.escalation.severity || 'medium'} severity`, detail: w.escalation.context || undefined, w })),
            { title: 'Autarch: Answer Job Review', ignoreFocusOut: true },
          );
    if (!pick) return;
    const answer = await vscode.window.showQuickPick([{ label: 'Approve', approved: true }, { label: 'Decline', approved: false }], {
      title: `Autarch: ${pick.w.job.name} asks: ${pick.w.escalation.reason}`,
      ignoreFocusOut: true,
    });
    if (!answer) return;
    const feedback = await vscode.window.showInputBox({ title: 'Autarch: feedback for the job (optional)', prompt: 'The agent gets this with your answer.', ignoreFocusOut: true });
    if (feedback === undefined) return;
    const live = liveEscalation(app.pending.list(), pick.w.escalation.id);
    if (live) {
      // The running job is asking right now: this answers its request, and it continues.
      await app.decide(live, answer.approved ? DecisionApprove : DecisionReject, feedback, false);
    } else {
      const params: AnswerEscalationParams = { jobId: pick.w.job.id, escalationId: pick.w.escalation.id, approved: answer.approved, feedback };
      await app.ctx.executeCommand(CommandAnswerEscalation, [params]);
    }
    await app.jobs.refresh();
  },
  'autarch.ui.resumeJob': async (app, id) => {
    const job = await pickJob(app, arg(id), resumableJobs, {
      title: 'Resume Job',
      none: 'no job is stopped, failed or waiting.',
      not: 'only a stopped, failed or waiting job can be resumed.',
    });
    if (!job) return;
    // "Resume the job with more guidance": the words its agent reads first (Escape: not resumed).
    const guidance = await vscode.window.showInputBox({ ...guidancePrompt(job), ignoreFocusOut: true });
    if (guidance === undefined) return;
    await app.ctx.executeCommand(CommandResumeJob, [resumeRef(job, guidance)]);
    await app.jobs.refresh();
    void vscode.window.showInformationMessage(`Autarch: job ${job.name} resumed${guidance.trim() ? ' with your guidance' : ''}; follow it in the side panel.`);
  },
  'autarch.ui.stopJob': async (app, id) => {
    const job = await pickJob(app, arg(id), stoppableJobs, {
      title: 'Stop Job',
      none: 'no job is running.',
      not: 'only a running job can be stopped.',
    });
    if (!job) return;
    // The server says when the run has ended ("stopped … resume it from the side panel").
    await sendRef(app, CommandStopJob, job);
  },
};
