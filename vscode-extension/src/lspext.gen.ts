// Code generated from editor/lspext.go and editor/editor.go by editor/tsgen_test.go; DO NOT EDIT.
// Regenerate with: go test ./editor -run TestTypeScript -update

/** CommandServerStatus returns a ServerStatus. */
export const CommandServerStatus = "autarch.serverStatus";
/** CommandShowMessage shows its one string argument back to the client as window/showMessage (a round-trip check for any client). */
export const CommandShowMessage = "autarch.showMessage";
/** MethodStatus (client → server request, params {}) returns ServerStatus. */
export const MethodStatus = "autarch/status";
/** MethodStatusChanged (server → client notification) carries ServerStatus whenever it changes (settings, workspace folders). */
export const MethodStatusChanged = "autarch/statusChanged";
/** MethodAskQuestions (server → client request, AskQuestionsParams) returns AskQuestionsResult; clients that implement it declare capabilities.experimental.autarch.questions = true in initialize. */
export const MethodAskQuestions = "autarch/askQuestions";
export const DecisionApprove = "approve";
export const DecisionReject = "reject";
export const DecisionAlwaysAllow = "always";
export const DecisionDismissed = "dismissed";
export const SingleSelect = "single_select";
export const MultiSelect = "multi_select";
export const Ranked = "ranked";
export const FreeText = "free_text";

export interface ServerStatus {
  version: string;
  pid: number;
  workspace: string[];
  model: ModelStatus;
  logFile: string;
  stateDir: string;
  message: string;
}

export interface ModelStatus {
  configured: boolean;
  baseUrl: string;
  name: string;
  hasApiKey: boolean;
  source: string;
}

export interface Settings {
  model: ModelSettings;
  apiKey?: string;
  logLevel?: string;
}

export interface ModelSettings {
  baseUrl?: string;
  name?: string;
}

export interface Question {
  type: string;
  prompt: string;
  options?: string[];
}

export interface Answer {
  values: string[];
  dismissed?: boolean;
}

export interface AskQuestionsParams {
  questions: Question[];
}

export interface AskQuestionsResult {
  answers: Answer[];
}

export interface Approval {
  kind: string;
  title: string;
  detail?: string;
  reason?: string;
  allowAlways?: boolean;
}

export interface Verdict {
  decision: string;
  feedback?: string;
}
