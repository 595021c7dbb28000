package server

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"

	"github.com/autarch-dev/autarch/editor"
)

func (s *Server) statusRequest(ctx context.Context, _ json.RawMessage) (any, error) {
	return s.status(), nil
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

// showMessage echoes its argument back as window/showMessage: a round trip
// any client can use to check that server → client messages work.
func (s *Server) showMessage(ctx context.Context, raw json.RawMessage) (any, error) {
	var text string
	if json.Unmarshal(raw, &text) != nil || text == "" {
		return nil, invalidParams("%s takes one argument, the text to show", editor.CommandShowMessage)
	}
	return nil, s.Client().ShowMessage(ctx, editor.Info, text)
}

// setAPIKey takes the model's API key from the client (autarch/setApiKey):
// its params are never logged, and the key is never sent back.
func (s *Server) setAPIKey(ctx context.Context, raw json.RawMessage) (any, error) {
	var p editor.SetAPIKeyParams
	if err := decode(raw, &p); err != nil {
		return nil, invalidParams("%s takes {\"apiKey\": string}", editor.MethodSetAPIKey)
	}
	s.mu.Lock()
	st := s.settings
	s.mu.Unlock()
	st.apiKey, st.keySource = p.APIKey, sourceRequest
	if p.APIKey == "" {
		st.apiKey, st.keySource = s.cfg.Getenv("OPENAI_API_KEY"), sourceEnv
	}
	s.setSettings(st)
	status := s.status()
	if err := s.Client().Notify(ctx, editor.MethodStatusChanged, status); err != nil {
		s.log.Debug("status not delivered", "err", err)
	}
	return status, nil
}
