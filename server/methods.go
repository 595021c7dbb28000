package server

import (
	"context"
	"encoding/json"

	"github.com/autarch-dev/autarch/app"
	"github.com/autarch-dev/autarch/editor"
)

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
// handler. A method that is one call of the application session names
// that call (sessionCall); the others' handlers live in the file of their
// family.
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

		// workflows (editor/lspext.go)
		editor.MethodWorkflows:       req(sessionCall(noParams((*app.Session).Workflows))),
		editor.MethodWorkflow:        req(sessionCall((*app.Session).Workflow)),
		editor.MethodFileAt:          req(sessionCall((*app.Session).FileAt)),
		editor.CommandNewWorkflow:    cmd(sessionCall((*app.Session).Start)),
		editor.CommandDiscuss:        cmd(sessionCall(done((*app.Session).Discuss))),
		editor.CommandStopWorkflow:   cmd(sessionCall(done((*app.Session).Stop))),
		editor.CommandResumeWorkflow: cmd(sessionCall((*app.Session).Resume)),
		editor.CommandAnswer:         cmd(sessionCall(done((*app.Session).Answer))),
		editor.CommandReviewBranch:   cmd(sessionCall((*app.Session).Review)), // the whole review runs inside the request: $/cancelRequest (or exit) cancels it
		editor.CommandSearch:         cmd(sessionCall((*app.Session).Search)),
		editor.CommandReindex:        cmd(sessionCall(done(func(d *app.Session, ctx context.Context, _ struct{}) error { return d.Reindex(ctx) }))),
		editor.CommandApplyWorkflow:  cmd(sessionCall((*app.Session).Apply)),
		editor.CommandPulseDiff:      cmd(sessionCall((*app.Session).Diff)),
		editor.CommandOpenFile:       cmd(sessionCall((*app.Session).Open)), // window/showDocument (clients that support it)

		// jobs (editor/jobs.go)
		editor.MethodJobs:              req(sessionCall(noParams((*app.Session).Jobs))),
		editor.CommandStartJob:         cmd(sessionCall((*app.Session).StartJob)),
		editor.CommandResumeJob:        cmd(sessionCall((*app.Session).ResumeJob)),
		editor.CommandStopJob:          cmd(sessionCall(done((*app.Session).StopJob))),
		editor.CommandAnswerEscalation: cmd(sessionCall(done((*app.Session).AnswerEscalation))),
		editor.CommandApplyJob:         cmd(sessionCall((*app.Session).ApplyJob)),

		// every run of the project, with its kind (runs.go sends their events)
		editor.MethodRuns: req(sessionCall(noParams((*app.Session).Runs))),

		// the fleet (autarch.fleet.natsUrl): Run in Background, the answer
		// to a fleet run's question, Apply of a fleet run's branch
		editor.MethodFleetSubmit: req(sessionCall((*app.Session).SubmitFleet)),
		editor.MethodFleetAnswer: req(sessionCall(done((*app.Session).AnswerFleet))),
		editor.MethodFleetApply:  req(sessionCall((*app.Session).ApplyFleet)),

		// swarms (editor/swarm.go)
		editor.MethodSwarms:               req(sessionCall(noParams((*app.Session).Swarms))),
		editor.CommandStartSwarm:          cmd(sessionCall((*app.Session).StartSwarm)),
		editor.CommandStopSwarm:           cmd(sessionCall((*app.Session).StopSwarm)),
		editor.CommandResumeSwarm:         cmd(sessionCall((*app.Session).ResumeSwarm)),
		editor.CommandDecideSwarmProposal: cmd(sessionCall((*app.Session).DecideSwarm)),

		// revert, redo and receipts of a workflow's pulses (issue 32)
		editor.MethodPlanRevert:   req(sessionCall((*app.Session).PlanRevert)),
		editor.MethodRevertPulse:  req(sessionCall((*app.Session).RevertPulse)),
		editor.MethodRedoPulse:    req(sessionCall((*app.Session).RedoPulse)),
		editor.MethodPulseReceipt: req(sessionCall((*app.Session).PulseReceipt)),
	}
}

// sessionCall is the handler of a method that is one call of the
// application session: it decodes the params into P, calls fn and
// answers with its result.
func sessionCall[P, R any](fn func(*app.Session, context.Context, P) (R, error)) handler {
	return func(s *Server, ctx context.Context, params json.RawMessage) (any, error) {
		var p P
		if err := decode(params, &p); err != nil {
			return nil, err
		}
		d, err := s.domain()
		if err != nil {
			return nil, err
		}
		return fn(d, ctx, p)
	}
}

// done adapts a session call without a result to one answered with {}.
func done[P any](fn func(*app.Session, context.Context, P) error) func(*app.Session, context.Context, P) (struct{}, error) {
	return func(d *app.Session, ctx context.Context, p P) (struct{}, error) {
		return struct{}{}, fn(d, ctx, p)
	}
}

// noParams adapts a session call that takes no params (they are ignored).
func noParams[R any](fn func(*app.Session, context.Context) (R, error)) func(*app.Session, context.Context, struct{}) (R, error) {
	return func(d *app.Session, ctx context.Context, _ struct{}) (R, error) {
		return fn(d, ctx)
	}
}
