package agent

import (
	"os"
	"strings"
)

// Settings configure the model side of the agents.
type Settings struct {
	// Model is the default model name; RoleModels override it per role.
	Model      string
	RoleModels map[string]string
	// ContextWindow in tokens (0: 128000).
	ContextWindow int
	Pricing       Pricing
	// JSONEnvelope selects the text tool-call envelope.
	JSONEnvelope bool
}

// ModelFor returns the model name for a role.
func (s Settings) ModelFor(role string) string {
	if m := s.RoleModels[role]; m != "" {
		return m
	}
	return s.Model
}

// RoleModelsFromEnv reads per-role overrides AUTARCH_MODEL_<ROLE>
// (e.g. AUTARCH_MODEL_REVIEW=gpt-4o).
func RoleModelsFromEnv() map[string]string {
	out := map[string]string{}
	for _, r := range []string{Discussion, Scoping, Research, Plan, Preflight, Pulsing, Review, Job} {
		if v := os.Getenv("AUTARCH_MODEL_" + strings.ToUpper(r)); v != "" {
			out[r] = v
		}
	}
	return out
}
