package editor

// This file declares the protocol extensions between the server and its
// clients: executeCommand names, custom autarch/* methods and their payloads.
// It is the single declaration; the extension's TypeScript types
// (vscode-extension/src/lspext.gen.ts) are generated from it and a test
// fails when they drift.

// Commands accepted by workspace/executeCommand (advertised in the
// executeCommandProvider capability).
const (
	// CommandServerStatus returns a ServerStatus.
	CommandServerStatus = "autarch.serverStatus"
	// CommandShowMessage shows its one string argument back to the client
	// as window/showMessage (a round-trip check for any client).
	CommandShowMessage = "autarch.showMessage"
)

// Custom methods.
const (
	// MethodStatus (client → server request, params {}) returns ServerStatus.
	MethodStatus = "autarch/status"
	// MethodStatusChanged (server → client notification) carries ServerStatus
	// whenever it changes (settings, workspace folders).
	MethodStatusChanged = "autarch/statusChanged"
	// MethodAskQuestions (server → client request, AskQuestionsParams)
	// returns AskQuestionsResult; clients that implement it declare
	// capabilities.experimental.autarch.questions = true in initialize.
	MethodAskQuestions = "autarch/askQuestions"
)

// AskQuestionsParams are the params of autarch/askQuestions.
type AskQuestionsParams struct {
	Questions []Question `json:"questions"`
}

// AskQuestionsResult holds one Answer per question, in order.
type AskQuestionsResult struct {
	Answers []Answer `json:"answers"`
}

// ServerStatus describes the running server for the side panel and the
// "Show Server Status" command.
type ServerStatus struct {
	// Version is the server's version string.
	Version string `json:"version"`
	// PID is the server's process id.
	PID int `json:"pid"`
	// Workspace lists the workspace folders' paths.
	Workspace []string `json:"workspace"`
	// Model describes the configured model endpoint.
	Model ModelStatus `json:"model"`
	// LogFile is the path of the server's log file ("" if none).
	LogFile string `json:"logFile"`
	// StateDir is where the server keeps state for the first workspace.
	StateDir string `json:"stateDir"`
	// Message is a one-line human summary, e.g. "Autarch dev: model gpt-4o at https://api.openai.com/v1".
	Message string `json:"message"`
}

// ModelStatus says whether a model endpoint is configured. The API key itself
// is never sent back to the client.
type ModelStatus struct {
	// Configured is true when a model name and an API key or a base URL are set.
	Configured bool `json:"configured"`
	// BaseURL is the OpenAI-compatible endpoint ("" means OpenAI's default).
	BaseURL string `json:"baseUrl"`
	// Name is the model name.
	Name string `json:"name"`
	// HasAPIKey tells whether a key is set (from the editor or the environment).
	HasAPIKey bool `json:"hasApiKey"`
	// Source names where the settings came from: "initializationOptions",
	// "didChangeConfiguration", "environment" or "none".
	Source string `json:"source"`
}

// Settings are the client-side settings, sent as initializationOptions and in
// workspace/didChangeConfiguration as {"settings": {"autarch": Settings}}.
// Empty fields fall back to the environment: OPENAI_API_KEY, OPENAI_BASE_URL,
// AUTARCH_MODEL.
type Settings struct {
	Model    ModelSettings `json:"model"`
	APIKey   string        `json:"apiKey,omitempty"`
	LogLevel string        `json:"logLevel,omitempty"`
}

// ModelSettings configures the model endpoint.
type ModelSettings struct {
	BaseURL string `json:"baseUrl,omitempty"`
	Name    string `json:"name,omitempty"`
}
