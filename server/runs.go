package server

import (
	"context"

	kernel "github.com/autarch-dev/autarch/agent/run"
	"github.com/autarch-dev/autarch/app"
	"github.com/autarch-dev/autarch/editor"
)

// eventMethods are the notification each kind of run's events go out as.
var eventMethods = map[kernel.Kind]string{
	kernel.KindWorkflow: editor.MethodWorkflowEvent,
	kernel.KindJob:      editor.MethodJobEvent,
	kernel.KindSwarm:    editor.MethodSwarmEvent,
}

// notifyEvent sends one event of the session's stream to the client as
// its kind's notification, carrying the kind's own event.
func (s *Server) notifyEvent(ev app.Event) {
	var params any
	method := eventMethods[ev.Run.Kind]
	switch {
	case ev.Fleet != nil:
		params, method = *ev.Fleet, editor.MethodFleetEvent
	case ev.Workflow != nil:
		params = *ev.Workflow
	case ev.Job != nil:
		params = *ev.Job
	case ev.Swarm != nil:
		params = *ev.Swarm
	default:
		return
	}
	if err := s.Client().Notify(context.Background(), method, params); err != nil {
		s.log.Debug("event not delivered", "kind", ev.Run.Kind, "err", err)
	}
}
