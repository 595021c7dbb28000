package server

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"

	"github.com/autarch-dev/autarch/editor"
)

func (s *Server) registerAutarch() {
	s.requests[editor.MethodStatus] = func(ctx context.Context, _ json.RawMessage) (any, error) {
		return s.status(), nil
	}
	s.commands[editor.CommandServerStatus] = func(ctx context.Context, _ []json.RawMessage) (any, error) {
		return s.status(), nil
	}
	s.commands[editor.CommandShowMessage] = s.showMessage
}

// status reports the server's state for the side panel and status command.
func (s *Server) status() editor.ServerStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := editor.ServerStatus{
		Version:   s.cfg.Version,
		PID:       os.Getpid(),
		Workspace: slices.Clone(s.folders),
		Model:     s.settings.status(),
		LogFile:   s.cfg.LogFile,
	}
	if st.Workspace == nil {
		st.Workspace = []string{}
	}
	st.Message = statusMessage(st)
	return st
}

func statusMessage(st editor.ServerStatus) string {
	model := "no model configured"
	if st.Model.Configured {
		endpoint := st.Model.BaseURL
		if endpoint == "" {
			endpoint = "the OpenAI API"
		}
		model = fmt.Sprintf("model %s at %s", st.Model.Name, endpoint)
	}
	ws := "no workspace folder"
	switch len(st.Workspace) {
	case 0:
	case 1:
		ws = "workspace " + st.Workspace[0]
	default:
		ws = fmt.Sprintf("%d workspace folders", len(st.Workspace))
	}
	return fmt.Sprintf("Autarch %s is running (pid %d): %s, %s.", st.Version, st.PID, ws, model)
}

// showMessage echoes its first argument back as window/showMessage: a
// round trip any client can use to check that server → client messages work.
func (s *Server) showMessage(ctx context.Context, args []json.RawMessage) (any, error) {
	var text string
	if len(args) == 0 || json.Unmarshal(args[0], &text) != nil || text == "" {
		return nil, invalidParams("%s takes one argument, the text to show", editor.CommandShowMessage)
	}
	return nil, s.Client().ShowMessage(ctx, editor.Info, text)
}
