package server

import (
	"github.com/autarch-dev/autarch/editor"
)

// Where settings came from (editor.ModelStatus.Source).
const (
	sourceNone   = "none"
	sourceInit   = "initializationOptions"
	sourceChange = "didChangeConfiguration"
	sourceEnv    = "environment"
)

// settings are the effective settings after environment fallbacks.
type settings struct {
	model    editor.ModelSettings
	apiKey   string
	logLevel string
	source   string
}

// resolveSettings applies the environment fallbacks (OPENAI_API_KEY,
// OPENAI_BASE_URL, AUTARCH_MODEL) to settings from the client.
func resolveSettings(in editor.Settings, source string, getenv func(string) string) settings {
	out := settings{model: in.Model, apiKey: in.APIKey, logLevel: in.LogLevel, source: source}
	fromEnv := false
	if out.apiKey == "" {
		out.apiKey = getenv("OPENAI_API_KEY")
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
	if in == (editor.Settings{}) {
		out.source = sourceNone
		if fromEnv {
			out.source = sourceEnv
		}
	}
	return out
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
