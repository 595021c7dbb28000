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
/** MethodSetAPIKey (client → server request, SetAPIKeyParams) gives the server the model's API key and returns ServerStatus. The server never logs its params nor sends the key back; clients should keep it out of their own protocol traces too. The alternative is OPENAI_API_KEY in the server's environment when spawning it. */
export const MethodSetAPIKey = "autarch/setApiKey";
/** MethodAskQuestions (server → client request, AskQuestionsParams) returns AskQuestionsResult; clients that implement it declare capabilities.experimental.autarch.questions = true in initialize. */
export const MethodAskQuestions = "autarch/askQuestions";
/** CommandNewWorkflow (NewWorkflowParams) starts a workflow in the background and returns its WorkflowRef; progress arrives as WorkflowEvent notifications. */
export const CommandNewWorkflow = "autarch.newWorkflow";
/** CommandDiscuss (DiscussParams) sends a message to the discussion agent; its answer arrives as a WorkflowEvent of kind "message", stage "discussion". */
export const CommandDiscuss = "autarch.discuss";
/** CommandStopWorkflow (WorkflowRef) stops a workflow. */
export const CommandStopWorkflow = "autarch.stopWorkflow";
/** CommandResumeWorkflow (WorkflowRef) resumes a stopped, halted or waiting workflow. */
export const CommandResumeWorkflow = "autarch.resumeWorkflow";
/** CommandAnswer (AnswerParams) answers a pending question, or decides a pending card, of a waiting workflow (clients without autarch/askQuestions, the side panel after a restart) and resumes it. */
export const CommandAnswer = "autarch.answer";
/** CommandReviewBranch (ReviewBranchParams) reviews the current branch against a base; comments arrive as diagnostics and WorkflowEvents, and the result is a ReviewView. */
export const CommandReviewBranch = "autarch.reviewBranch";
/** CommandSearch (SearchParams) returns SearchHit[] from the code index. */
export const CommandSearch = "autarch.search";
/** CommandReindex ({}) rebuilds the code index with $/progress. */
export const CommandReindex = "autarch.reindex";
/** CommandApplyWorkflow (ApplyWorkflowParams) brings a workflow's work into the user's folder and returns ApplyWorkflowResult. */
export const CommandApplyWorkflow = "autarch.applyWorkflow";
/** CommandPulseDiff (PulseDiffParams) returns the PulseDiff of a workflow or one of its pulses. */
export const CommandPulseDiff = "autarch.pulseDiff";
/** CommandOpenFile (OpenFileParams) opens a file of the workspace at a line with window/showDocument and returns OpenFileResult (clients without showDocument get Shown false and open it themselves). */
export const CommandOpenFile = "autarch.openFile";
export const MethodRuns = "autarch/runs";
/** MethodFleetSubmit (client → server request, FleetSubmitParams) queues a run for the fleet's workers and returns its FleetRunRef; it is listed by autarch/runs with its worker. */
export const MethodFleetSubmit = "autarch/fleetSubmit";
/** MethodFleetAnswer (client → server request, FleetAnswerParams) answers the question a fleet run waits on (RunSummary.Prompt). */
export const MethodFleetAnswer = "autarch/fleetAnswer";
/** MethodFleetApply (client → server request, FleetApplyParams) fetches a completed fleet run's branch from its remote and brings it into the user's folder as a workflow's Apply does; returns ApplyWorkflowResult. */
export const MethodFleetApply = "autarch/fleetApply";
/** MethodFleetEvent (server → client notification) carries a FleetEvent of a run this editor follows. */
export const MethodFleetEvent = "autarch/fleetEvent";
/** MethodWorkflows (client → server request, {}) returns WorkflowSummary[]. */
export const MethodWorkflows = "autarch/workflows";
/** MethodWorkflow (client → server request, WorkflowRef) returns WorkflowDetail. */
export const MethodWorkflow = "autarch/workflow";
/** MethodFileAt (client → server request, FileAtParams) returns FileAtResult. */
export const MethodFileAt = "autarch/fileAt";
/** MethodWorkflowEvent (server → client notification) carries a WorkflowEvent. */
export const MethodWorkflowEvent = "autarch/workflowEvent";
/** MethodApprove (server → client request, Approval) returns a Verdict; clients that implement it declare capabilities.experimental.autarch.approvals = true (others get window/showMessageRequest). */
export const MethodApprove = "autarch/approve";
/** MethodDiagnostics (server → client request, DiagnosticsParams) returns the editor's DiagnosticsResult for paths of the user's workspace (read_lints); clients declare capabilities.experimental.autarch.diagnostics. */
export const MethodDiagnostics = "autarch/diagnostics";
/** MethodLanguageFeature (server → client request, LanguageFeatureParams) returns the editor's own LanguageFeatureResult (its language features, no second language server) for a file of the user's workspace: the discussion agent's go_to_definition and find_references. A client that does not answer it leaves them to Autarch's language servers. */
export const MethodLanguageFeature = "autarch/languageFeature";
/** EventStage: the workflow entered a stage (From, Text says from where), or preflight runs (Status "running", Worktree). */
export const EventStage = "stage";
/** EventToolCall: an agent called a tool (Tool, Reason, ToolCallID). */
export const EventToolCall = "tool_call";
/** EventToolResult: a tool call ended (Tool, Failed, Text, ToolCallID). */
export const EventToolResult = "tool_result";
/** EventMessage: an agent or the user said something (Text). */
export const EventMessage = "message";
/** EventPulse: a pulse changed status (PulseID, Status, Text; Unresolved). */
export const EventPulse = "pulse";
/** EventCard: a card was submitted or decided (Card). */
export const EventCard = "card";
/** EventReviewComment: the reviewer commented (Status is the severity). */
export const EventReviewComment = "review_comment";
/** EventReviewAnchor: the review's comments moved (Text is the review id). */
export const EventReviewAnchor = "review_anchor";
/** EventHalt: the workflow stopped, halted or was abandoned (Status, Text). */
export const EventHalt = "halt";
/** EventWaiting: the workflow waits for the user (Status is the pending kind, Text its id). */
export const EventWaiting = "waiting";
/** EventUsage: tokens and cost of a model call (Usage; Text says it in words). */
export const EventUsage = "usage";
/** EventDryRunPlan: a dry run's plan so far (DryRun), after each recorded call and once more when the dry run ends (DryRun.Ended). */
export const EventDryRunPlan = "dry_run_plan";
export const CardScope = "scope";
export const CardResearch = "research";
export const CardPlan = "plan";
export const CardExtension = "extension";
export const CardReview = "review";
export const CardSubmitted = "submitted";
export const CardApproved = "approved";
export const CardRejected = "rejected";
export const MethodProject = "autarch/project";
export const DecisionApprove = "approve";
export const DecisionReject = "reject";
export const DecisionAlwaysAllow = "always";
export const DecisionDismissed = "dismissed";
/** DecisionAbort stops the whole run: the agent's turn ends and the workflow is stopped (resumable), as when the user stops it. */
export const DecisionAbort = "abort";
export const SingleSelect = "single_select";
export const MultiSelect = "multi_select";
export const Ranked = "ranked";
export const FreeText = "free_text";
/** CommandStartJob (StartJobParams) starts a job in the background and returns its JobRef; progress arrives as JobEvent notifications. */
export const CommandStartJob = "autarch.startJob";
/** CommandResumeJob (JobRef) resumes a stopped, failed or waiting job in the background, with the JobRef's guidance, and returns its JobRef. */
export const CommandResumeJob = "autarch.resumeJob";
/** CommandStopJob (JobRef) stops a running or waiting job; it can be resumed later. */
export const CommandStopJob = "autarch.stopJob";
/** CommandAnswerEscalation (AnswerEscalationParams) answers a job's pending request_human_review and resumes the job. */
export const CommandAnswerEscalation = "autarch.answerEscalation";
/** CommandApplyJob (ApplyJobParams) brings a job's commits into the user's folder and returns ApplyWorkflowResult. */
export const CommandApplyJob = "autarch.applyJob";
/** MethodJobs (client → server request, params {}) returns []JobSummary, most recently updated first. */
export const MethodJobs = "autarch/jobs";
/** MethodJobEvent (server → client notification) carries a JobEvent. */
export const MethodJobEvent = "autarch/jobEvent";
/** ApprovalEscalation is the Approval kind of a job's request_human_review: Severity and Context say more. */
export const ApprovalEscalation = "escalation";
/** CommandStartSwarm (StartSwarmParams) starts a swarm in the background and returns its SwarmRef; progress arrives as SwarmEvent notifications. */
export const CommandStartSwarm = "autarch.startSwarm";
/** CommandStopSwarm (SwarmRef) stops a running swarm; it can be resumed. */
export const CommandStopSwarm = "autarch.stopSwarm";
/** CommandResumeSwarm (SwarmRef) resumes a stopped or failed swarm in the background from where it stopped. */
export const CommandResumeSwarm = "autarch.resumeSwarm";
/** CommandDecideSwarmProposal (SwarmDecisionParams) answers one proposal awaiting a human arbiter. */
export const CommandDecideSwarmProposal = "autarch.decideSwarmProposal";
/** MethodSwarms (client → server request, params {}) returns []SwarmSnapshot, most recently updated first. */
export const MethodSwarms = "autarch/swarms";
/** MethodSwarmEvent (server → client notification) carries a SwarmEvent. */
export const MethodSwarmEvent = "autarch/swarmEvent";
/** MethodPlanRevert (RevertPulseParams) returns the RevertPlanView of reverting a pulse, changing nothing: the confirmation a person sees. */
export const MethodPlanRevert = "autarch/planRevert";
/** MethodRevertPulse (RevertPulseParams) reverts a pulse and the later pulses that depend on it on the workflow branch and returns a RevertPulseResult; a workflow already applied needs Applied true. */
export const MethodRevertPulse = "autarch/revertPulse";
/** MethodRedoPulse (RedoPulseParams) runs a reverted pulse again, with optional guidance, resuming the workflow in the background; it returns the WorkflowRef. */
export const MethodRedoPulse = "autarch/redoPulse";
/** MethodPulseReceipt (PulseReceiptParams) returns the PulseReceiptView of a pulse's checkpoint commit. */
export const MethodPulseReceipt = "autarch/pulseReceipt";

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
  fleet?: FleetSettings;
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
  workflowId?: string;
  title?: string;
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
  allowAbort?: boolean;
  workflowId?: string;
  jobId?: string;
  escalationId?: string;
  severity?: string;
  context?: string;
}

export interface Verdict {
  decision: string;
  feedback?: string;
}

export interface NewWorkflowParams {
  task: string;
  name?: string;
  path?: string;
  dryRun?: boolean;
  parallel?: number;
}

export interface WorkflowRef {
  workflowId: string;
  name?: string;
}

export interface DiscussParams {
  message: string;
}

export interface AnswerParams {
  workflowId: string;
  pendingId: string;
  answers?: Answer[];
  verdict?: Verdict | null;
}

export interface ReviewBranchParams {
  base: string;
}

export interface SearchParams {
  query: string;
  maxResults?: number;
}

export interface SearchHit {
  file_path: string;
  start_line: number;
  end_line: number;
  snippet: string;
  score: number;
  adjusted_score: number;
}

export interface ApplyWorkflowParams {
  workflowId: string;
  mode: string;
}

export interface ApplyWorkflowResult {
  applied: boolean;
  files: string[];
  message: string;
}

export interface PulseDiffParams {
  workflowId: string;
  pulseId?: string;
}

export interface PulseDiff {
  base: string;
  head: string;
  title: string;
  files: PulseDiffFile[];
}

export interface PulseDiffFile {
  path: string;
  oldPath?: string;
  status: string;
  additions: number;
  deletions: number;
}

export interface FileAtParams {
  commit: string;
  path: string;
}

export interface FileAtResult {
  text: string;
  missing?: boolean;
}

export interface WorkflowEvent {
  kind: string;
  workflowId: string;
  stage?: string;
  pulseId?: string;
  tool?: string;
  toolCallId?: string;
  parentToolCallId?: string;
  subagent?: string;
  reason?: string;
  status?: string;
  card?: CardEvent | null;
  text?: string;
  failed?: boolean;
  from?: string;
  worktree?: string;
  unresolved?: number;
  dryRun?: DryRunPlanView | null;
  usage?: UsageView | null;
}

export interface CardEvent {
  kind: string;
  status: string;
  recommendation?: string;
}

export interface UsageView {
  promptTokens: number;
  completionTokens: number;
  cost: number;
}

export interface DryRunPlanView {
  entries: DryRunEntryView[];
  files: DryRunFileView[];
  ended?: boolean;
  outcome?: string;
}

export interface DryRunEntryView {
  stage?: string;
  tool: string;
  action: string;
  reason?: string;
  path?: string;
  change?: string;
}

export interface DryRunFileView {
  path: string;
  changes: string[];
}

export interface SetAPIKeyParams {
  apiKey: string;
}

export interface OpenFileParams {
  path: string;
  line?: number;
}

export interface OpenFileResult {
  shown: boolean;
}

export interface WorkflowSummary {
  id: string;
  name: string;
  task: string;
  stage: string;
  status: string;
  statusReason?: string;
  path?: string;
  branch: string;
  pulsesDone: number;
  pulses: number;
  tokens: number;
  cost: number;
  updatedAt: string;
}

export interface WorkflowDetail {
  summary: WorkflowSummary;
  stages: StageView[];
  scope: CardView | null;
  research: CardView | null;
  plan: CardView | null;
  pulses: PulseView[];
  parallel?: number;
  pending: PendingView[];
  activity: ActivityView[];
  messages: MessageView[];
  review: ReviewView | null;
}

export interface StageView {
  stage: string;
  state: string;
}

export interface CardView {
  title: string;
  markdown: string;
  status: string;
  feedback?: string;
}

export interface PulseView {
  id: string;
  title: string;
  status: string;
  summary?: string;
  commit?: string;
  branch?: string;
  files: number;
  additions: number;
  deletions: number;
  recovery: boolean;
  unresolved: string[];
  failureReason?: string;
  lane?: number;
  worker?: string;
  waitingOn?: string[];
  mergeOrder?: number;
  reverted?: boolean;
  guidance?: string;
}

export interface PendingView {
  id: string;
  kind: string;
  stage: string;
  payload: string;
}

export interface ActivityView {
  time: string;
  stage: string;
  pulseId?: string;
  tool: string;
  reason: string;
  failed: boolean;
  subagent?: string;
  callId?: string;
  parentCallId?: string;
}

export interface MessageView {
  role: string;
  stage: string;
  text: string;
}

export interface ReviewView {
  id: string;
  status: string;
  recommendation: string;
  summary: string;
  base: string;
  head: string;
  comments: CommentView[];
}

export interface CommentView {
  id: string;
  type: string;
  filePath?: string;
  startLine?: number;
  endLine?: number;
  severity: string;
  category: string;
  description: string;
  suggestion?: string;
  preExisting: boolean;
  uri?: string;
}

export interface DiagnosticsParams {
  paths: string[];
}

export interface DiagnosticsResult {
  diagnostics: DiagnosticItem[];
}

export interface DiagnosticItem {
  file: string;
  line: number;
  column: number;
  severity: string;
  message: string;
  source: string;
}

export interface LanguageFeatureParams {
  feature: string;
  path: string;
  line: number;
  character: number;
}

export interface LanguageFeatureResult {
  locations: EditorLocation[];
}

export interface EditorLocation {
  path: string;
  line: number;
  character: number;
}

export interface StartJobParams {
  task: string;
  mode?: string;
  base?: string;
}

export interface JobRef {
  jobId: string;
  name?: string;
  guidance?: string;
}

export interface AnswerEscalationParams {
  jobId: string;
  escalationId: string;
  approved: boolean;
  feedback?: string;
}

export interface ApplyJobParams {
  jobId: string;
  mode: string;
}

export interface JobEvent {
  kind: string;
  jobId: string;
  tool?: string;
  reason?: string;
  status?: string;
  text?: string;
  failed?: boolean;
  toolCallId?: string;
  usage?: UsageView | null;
}

export interface JobSummary {
  id: string;
  name: string;
  task: string;
  mode: string;
  status: string;
  statusReason?: string;
  base: string;
  branch: string;
  worktree: string;
  commits: JobCommitView[];
  tests: JobCheckView | null;
  lint: JobCheckView | null;
  escalations: EscalationView[];
  analyses: number;
  planSteps: number;
  tokens: number;
  tokenBudget: number;
  iterations: number;
  cost: number;
  updatedAt: string;
  activity: ActivityView[];
}

export interface JobCommitView {
  hash: string;
  message: string;
  branch: string;
  files: number;
}

export interface JobCheckView {
  status: string;
  passed: number;
  failed: number;
  summary?: string;
}

export interface EscalationView {
  id: string;
  reason: string;
  severity?: string;
  context?: string;
  status: string;
  approved: boolean;
  feedback?: string;
  createdAt?: string;
  resolvedAt?: string;
}

export interface ProjectState {
  mcpServers: MCPServerState[];
  rules: RuleFileState[];
  warnings: string[];
}

export interface MCPServerState {
  name: string;
  transport: string;
  origin: string;
  state: string;
  tools: string[];
  error?: string;
}

export interface RuleFileState {
  path: string;
  size: number;
  applies: string;
}

export interface StartSwarmParams {
  task: string;
  agents?: string[];
  rounds?: number;
  arbiter?: string;
  allowWrite?: boolean;
  readOnly?: boolean;
}

export interface SwarmRef {
  swarmId: string;
}

export interface SwarmDecisionParams {
  swarmId: string;
  proposalId: string;
  action: string;
  notes?: string;
}

export interface SwarmEvent {
  kind: string;
  swarmId: string;
  round?: number;
  agent?: string;
  tool?: string;
  path?: string;
  action?: string;
  status?: string;
  text?: string;
  failed?: boolean;
  refused?: boolean;
}

export interface SwarmAgent {
  name: string;
  model?: string;
  role: string;
  envelope?: boolean;
}

export interface SwarmProposal {
  id: string;
  agent: string;
  round: number;
  path: string;
  content: string;
  diff: string;
  action?: string;
  notes?: string;
  applied?: boolean;
}

export interface SwarmContextEntry {
  key: string;
  value: unknown;
  version: number;
}

export interface SwarmQueueItem {
  id: string;
  kind: string;
  status: string;
  holder?: string;
  leaseUntil?: string;
}

export interface SwarmRateLimitHit {
  agent: string;
  tool: string;
  round: number;
  resetSec: number;
}

export interface SwarmSnapshot {
  id: string;
  task: string;
  status: string;
  reason?: string;
  round: number;
  rounds: number;
  phase: number;
  stage: string;
  arbiter: string;
  allowWrite: boolean;
  readOnly?: boolean;
  branch: string;
  worktree: string;
  agents: SwarmAgent[];
  context: SwarmContextEntry[];
  queue: SwarmQueueItem[];
  proposals: SwarmProposal[];
  rateLimits: SwarmRateLimitHit[];
  commits: string[];
  updatedAt: string;
}

export interface RunSummary {
  kind: string;
  id: string;
  name: string;
  task: string;
  status: string;
  statusReason?: string;
  branch: string;
  updatedAt: string;
  fleet?: boolean;
  worker?: string;
  prompt?: string;
  context?: string[];
}

export interface FleetSettings {
  natsUrl?: string;
  creds?: string;
  repo?: string;
}

export interface FleetSubmitParams {
  kind?: string;
  task: string;
  name?: string;
  mode?: string;
  path?: string;
  base?: string;
  labels?: string[];
}

export interface FleetRunRef {
  id: string;
}

export interface FleetAnswerParams {
  id: string;
  answer: string;
}

export interface FleetApplyParams {
  id: string;
  mode: string;
}

export interface FleetEvent {
  id: string;
  kind: string;
  status?: string;
  text?: string;
}

export interface RevertPulseParams {
  workflowId: string;
  name?: string;
  pulse: string;
  applied?: boolean;
}

export interface RevertPlanView {
  workflowId: string;
  workflow: string;
  branch: string;
  pulse: string;
  pulses: RevertPulseView[];
  files: string[];
  appliedTo?: string;
}

export interface RevertPulseView {
  id: string;
  title: string;
  status: string;
  commit?: string;
  summary?: string;
  files: string[];
}

export interface RevertPulseResult {
  plan: RevertPlanView;
  commits: string[];
  resolved: number;
  message: string;
}

export interface RedoPulseParams {
  workflowId: string;
  name?: string;
  pulse: string;
  guidance?: string;
}

export interface PulseReceiptParams {
  workflowId: string;
  pulse: string;
}

export interface PulseReceiptView {
  found: boolean;
  commit?: string;
  text?: string;
  receipt?: string;
  message?: string;
}
