package server

import "github.com/autarch-dev/autarch/editor"

// methodKind says how a method arrives.
type methodKind int

const (
	request      methodKind = iota // a client → server request
	notification                   // a client → server notification
	command                        // a workspace/executeCommand command
)

// method is one entry of the method table.
type method struct {
	kind methodKind
	fn   handler
}

// methodTable maps every method and command the server handles to its
// handler; the handler lives in the file of its family.
func methodTable() map[string]method {
	req := func(fn handler) method { return method{kind: request, fn: fn} }
	note := func(fn handler) method { return method{kind: notification, fn: fn} }
	cmd := func(fn handler) method { return method{kind: command, fn: fn} }
	return map[string]method{
		// lifecycle.go
		"initialize":  req((*Server).initialize),
		"initialized": note((*Server).initialized),
		"shutdown":    req((*Server).shutdown),
		"exit":        note((*Server).exit),

		// workspace.go
		"workspace/executeCommand":            req((*Server).executeCommand),
		"workspace/didChangeConfiguration":    note((*Server).didChangeConfiguration),
		"workspace/didChangeWorkspaceFolders": note((*Server).didChangeWorkspaceFolders),
		"workspace/didChangeWatchedFiles":     note((*Server).didChangeWatchedFiles),

		// textdocument.go
		"textDocument/didOpen":    note((*Server).didOpen),
		"textDocument/didChange":  note((*Server).didChange),
		"textDocument/didClose":   note((*Server).didClose),
		"textDocument/didSave":    note((*Server).didSave),
		"textDocument/codeAction": req((*Server).codeAction),

		// window.go
		"window/workDoneProgress/cancel": note((*Server).cancelProgress),

		// autarch.go
		editor.MethodStatus:        req((*Server).statusRequest),
		editor.MethodSetAPIKey:     req((*Server).setAPIKey),
		editor.CommandServerStatus: cmd((*Server).statusRequest),
		editor.CommandShowMessage:  cmd((*Server).showMessage),

		// project.go
		editor.MethodProject: req((*Server).project),

		// workflows.go
		editor.MethodWorkflows:       req((*Server).workflows),
		editor.MethodWorkflow:        req((*Server).workflow),
		editor.MethodFileAt:          req((*Server).fileAt),
		editor.CommandNewWorkflow:    cmd((*Server).newWorkflow),
		editor.CommandDiscuss:        cmd((*Server).discuss),
		editor.CommandStopWorkflow:   cmd((*Server).stopWorkflow),
		editor.CommandResumeWorkflow: cmd((*Server).resumeWorkflow),
		editor.CommandAnswer:         cmd((*Server).answer),
		editor.CommandReviewBranch:   cmd((*Server).reviewBranch),
		editor.CommandSearch:         cmd((*Server).search),
		editor.CommandReindex:        cmd((*Server).reindex),
		editor.CommandApplyWorkflow:  cmd((*Server).applyWorkflow),
		editor.CommandPulseDiff:      cmd((*Server).pulseDiff),
		editor.CommandOpenFile:       cmd((*Server).openFile),

		// jobs.go
		editor.MethodJobs:              req((*Server).listJobs),
		editor.CommandStartJob:         cmd((*Server).startJob),
		editor.CommandResumeJob:        cmd((*Server).resumeJob),
		editor.CommandStopJob:          cmd((*Server).stopJob),
		editor.CommandAnswerEscalation: cmd((*Server).answerEscalation),
		editor.CommandApplyJob:         cmd((*Server).applyJob),

		// runs.go
		editor.MethodRuns: req((*Server).runs),

		editor.MethodFleetSubmit: req((*Server).fleetSubmit),
		editor.MethodFleetAnswer: req((*Server).fleetAnswer),
		editor.MethodFleetApply:  req((*Server).fleetApply),

		// swarms.go
		editor.MethodSwarms:               req((*Server).listSwarms),
		editor.CommandStartSwarm:          cmd((*Server).startSwarm),
		editor.CommandStopSwarm:           cmd((*Server).stopSwarm),
		editor.CommandResumeSwarm:         cmd((*Server).resumeSwarm),
		editor.CommandDecideSwarmProposal: cmd((*Server).decideSwarmProposal),

		// revert.go
		editor.MethodPlanRevert:   req((*Server).planRevert),
		editor.MethodRevertPulse:  req((*Server).revertPulse),
		editor.MethodRedoPulse:    req((*Server).redoPulse),
		editor.MethodPulseReceipt: req((*Server).pulseReceipt),
	}
}
