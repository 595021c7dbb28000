package server

import (
	"github.com/autarch-dev/autarch/editor"
)

// Where settings came from (editor.ModelStatus.Source).
const (
	sourceNone    = "none"
	sourceInit    = "initializationOptions"
	sourceChange  = "didChangeConfiguration"
	sourceEnv     = "environment"
	sourceRequest = editor.MethodSetAPIKey
)

// settings are the effective settings after environment fallbacks.
type settings struct {
	model     editor.ModelSettings
	apiKey    string
	keySource string
	logLevel  string
	source    string
	fleet     editor.FleetSettings
}

// resolveSettings applies the environment fallbacks (OPENAI_API_KEY,
// OPENAI_BASE_URL, AUTARCH_MODEL) to settings from the client. The key
// comes from autarch/setApiKey (key) or the environment, never from the
// settings payload.
func resolveSettings(in editor.Settings, key, source string, getenv func(string) string) settings {
	out := settings{model: in.Model, apiKey: key, keySource: sourceRequest, logLevel: in.LogLevel, source: source, fleet: in.Fleet}
	fromEnv := false
	if out.apiKey == "" {
		out.apiKey, out.keySource = getenv("OPENAI_API_KEY"), sourceEnv
		fromEnv = fromEnv || out.apiKey != ""
	}
	if out.model.BaseURL == "" {
		out.model.BaseURL = getenv("OPENAI_BASE_URL")
		fromEnv = fromEnv || out.model.BaseURL != ""
	}
	if out.model.Name == "" {
		out.model.Name = getenv("AUTARCH_MODEL")
		fromEnv = fromEnv || out.model.Name != ""
	}
	if in.Model == (editor.ModelSettings{}) && in.LogLevel == "" {
		out.source = sourceNone
		if fromEnv {
			out.source = sourceEnv
		}
	}
	return out
}

// setSettings records the effective settings and hands the model's to
// whoever follows them.
func (s *Server) setSettings(st settings) {
	s.mu.Lock()
	s.settings = st
	sess := s.session
	s.mu.Unlock()
	s.cfg.Settings(st.model, st.apiKey)
	if sess != nil {
		sess.SetFleet(st.fleet)
	}
}

// status describes the model configuration without the key.
func (st settings) status() editor.ModelStatus {
	return editor.ModelStatus{
		Configured: st.model.Name != "" && (st.apiKey != "" || st.model.BaseURL != ""),
		BaseURL:    st.model.BaseURL,
		Name:       st.model.Name,
		HasAPIKey:  st.apiKey != "",
		Source:     st.source,
	}
}
