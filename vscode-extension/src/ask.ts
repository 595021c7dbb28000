// The input box each start command opens first: the run's task.
import * as vscode from 'vscode';

/**
 * Asks for a run's task (New Workflow, Start Job, Start Swarm, Run in Background); an empty one is refused in the
 * box. Returns the task trimmed, or undefined when the box was closed.
 */
export async function askTask(title: string, prompt: string, placeHolder: string): Promise<string | undefined> {
  const task = await vscode.window.showInputBox({
    title,
    prompt,
    placeHolder,
    ignoreFocusOut: true,
    validateInput: (v) => (v.trim() ? undefined : 'Describe the task.'),
  });
  return task?.trim();
}
