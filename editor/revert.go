package editor

// Revert, redo and receipts (issue 32): the requests the side panel and
// the palette use to undo a pulse, run it again and show its receipt. The
// TypeScript types are generated with the rest of the protocol
// (vscode-extension/src/lspext.gen.ts).

// Revert and receipt methods (client → server requests).
const (
	// MethodPlanRevert (RevertPulseParams) returns the RevertPlanView of
	// reverting a pulse, changing nothing: the confirmation a person sees.
	MethodPlanRevert = "autarch/planRevert"
	// MethodRevertPulse (RevertPulseParams) reverts a pulse and the later
	// pulses that depend on it on the workflow branch and returns a
	// RevertPulseResult; a workflow already applied needs Applied true.
	MethodRevertPulse = "autarch/revertPulse"
	// MethodRedoPulse (RedoPulseParams) runs a reverted pulse again, with
	// optional guidance, resuming the workflow in the background; it
	// returns the WorkflowRef.
	MethodRedoPulse = "autarch/redoPulse"
	// MethodPulseReceipt (PulseReceiptParams) returns the PulseReceiptView
	// of a pulse's checkpoint commit.
	MethodPulseReceipt = "autarch/pulseReceipt"
)

// RevertPulseParams name a workflow and one of its pulses (the plan's id,
// e.g. "pulse-2", or its number). Applied confirms reverting a workflow
// already applied to the user's branch (which keeps those changes until
// the workflow is applied again).
type RevertPulseParams struct {
	WorkflowID string `json:"workflowId"`
	Name       string `json:"name,omitempty"`
	Pulse      string `json:"pulse"`
	Applied    bool   `json:"applied,omitempty"`
}

// RevertPlanView is what reverting a pulse undoes.
type RevertPlanView struct {
	WorkflowID string `json:"workflowId"`
	Workflow   string `json:"workflow"`
	// Branch is the workflow branch the revert commits go on.
	Branch string `json:"branch"`
	// Pulse is the pulse asked for (its plan id).
	Pulse string `json:"pulse"`
	// Pulses are the pulses undone, in plan order: Pulse and the later
	// pulses that depend on it.
	Pulses []RevertPulseView `json:"pulses"`
	// Files are the files the undone commits change, sorted.
	Files []string `json:"files"`
	// AppliedTo names the user's branch when the workflow was already
	// applied to it: the revert does not change that branch.
	AppliedTo string `json:"appliedTo,omitempty"`
}

// RevertPulseView is one pulse a revert undoes.
type RevertPulseView struct {
	ID      string   `json:"id"`
	Title   string   `json:"title"`
	Status  string   `json:"status"`
	Commit  string   `json:"commit,omitempty"`
	Summary string   `json:"summary,omitempty"`
	Files   []string `json:"files"`
}

// RevertPulseResult is a finished revert.
type RevertPulseResult struct {
	Plan RevertPlanView `json:"plan"`
	// Commits are the revert commits made on the workflow branch.
	Commits []string `json:"commits"`
	// Resolved counts the review comments on reverted lines resolved.
	Resolved int `json:"resolved"`
	// Message says what happened and what to do next.
	Message string `json:"message"`
}

// RedoPulseParams run a reverted pulse again; Guidance ("" for none) is
// given to the pulse's agent.
type RedoPulseParams struct {
	WorkflowID string `json:"workflowId"`
	Name       string `json:"name,omitempty"`
	Pulse      string `json:"pulse"`
	Guidance   string `json:"guidance,omitempty"`
}

// PulseReceiptParams name a pulse of a workflow (its plan id).
type PulseReceiptParams struct {
	WorkflowID string `json:"workflowId"`
	Pulse      string `json:"pulse"`
}

// PulseReceiptView is a pulse's completion receipt: Found is false when
// the pulse has no checkpoint commit or the commit carries no receipt
// (Message says why and what to do); Text is the receipt as
// `autarch receipt show` prints it, Receipt its JSON.
type PulseReceiptView struct {
	Found   bool   `json:"found"`
	Commit  string `json:"commit,omitempty"`
	Text    string `json:"text,omitempty"`
	Receipt string `json:"receipt,omitempty"`
	Message string `json:"message,omitempty"`
}
