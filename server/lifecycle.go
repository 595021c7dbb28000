package server

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"

	"go.lsp.dev/uri"

	"github.com/autarch-dev/autarch/app"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/tools"
)

// initializeParams is the part of LSP's InitializeParams the server uses.
type initializeParams struct {
	ProcessID        *int            `json:"processId"`
	RootURI          string          `json:"rootUri"`
	RootPath         string          `json:"rootPath"`
	WorkspaceFolders []workspaceDir  `json:"workspaceFolders"`
	Options          json.RawMessage `json:"initializationOptions"`
	ClientInfo       struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"clientInfo"`
	Capabilities struct {
		Window struct {
			WorkDoneProgress bool `json:"workDoneProgress"`
			ShowDocument     struct {
				Support bool `json:"support"`
			} `json:"showDocument"`
		} `json:"window"`
		Workspace struct {
			ApplyEdit bool `json:"applyEdit"`
		} `json:"workspace"`
		Experimental struct {
			Autarch struct {
				// Questions: the client answers autarch/askQuestions.
				Questions bool `json:"questions"`
				// Approvals: the client answers autarch/approve.
				Approvals bool `json:"approvals"`
				// Diagnostics: the client answers autarch/diagnostics.
				Diagnostics bool `json:"diagnostics"`
			} `json:"autarch"`
		} `json:"experimental"`
	} `json:"capabilities"`
}

type workspaceDir struct {
	URI  string `json:"uri"`
	Name string `json:"name"`
}

// clientInfo is what the server remembers of the client.
type clientInfo struct {
	name             string
	workDoneProgress bool
	showDocument     bool
	applyEdit        bool
	questions        bool
	approvals        bool
	diagnostics      bool
}

// initializeResult is LSP's InitializeResult with the capabilities we offer.
type initializeResult struct {
	Capabilities capabilities `json:"capabilities"`
	ServerInfo   struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"serverInfo"`
}

type capabilities struct {
	TextDocumentSync struct {
		OpenClose bool `json:"openClose"`
		Change    int  `json:"change"` // 1 = full
		Save      struct {
			IncludeText bool `json:"includeText"`
		} `json:"save"`
	} `json:"textDocumentSync"`
	ExecuteCommandProvider struct {
		Commands []string `json:"commands"`
	} `json:"executeCommandProvider"`
	// CodeActionProvider offers review suggestions as quick fixes.
	CodeActionProvider bool `json:"codeActionProvider"`
	Workspace          struct {
		WorkspaceFolders struct {
			Supported           bool `json:"supported"`
			ChangeNotifications bool `json:"changeNotifications"`
		} `json:"workspaceFolders"`
	} `json:"workspace"`
}

func (s *Server) initialize(ctx context.Context, raw json.RawMessage) (any, error) {
	var p initializeParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	var opts editor.Settings
	if len(p.Options) > 0 && string(p.Options) != "null" {
		if err := json.Unmarshal(p.Options, &opts); err != nil {
			return nil, invalidParams("initializationOptions: %v (expected {\"model\":{\"baseUrl\",\"name\"},\"logLevel\"})", err)
		}
	}
	if opts.APIKey != "" {
		s.log.Warn("an API key arrived in initializationOptions, where protocol traces show it: send it with " + editor.MethodSetAPIKey + " or set OPENAI_API_KEY when starting the server")
	}
	s.mu.Lock()
	if s.state != uninitialized {
		s.mu.Unlock()
		return nil, invalidParams("initialize was already received")
	}
	s.state = running
	c := p.Capabilities
	s.client = clientInfo{
		name:             p.ClientInfo.Name,
		workDoneProgress: c.Window.WorkDoneProgress,
		showDocument:     c.Window.ShowDocument.Support,
		applyEdit:        c.Workspace.ApplyEdit,
		questions:        c.Experimental.Autarch.Questions,
		approvals:        c.Experimental.Autarch.Approvals,
		diagnostics:      c.Experimental.Autarch.Diagnostics,
	}
	s.folders = foldersOf(p)
	folders := slices.Clone(s.folders)
	s.mu.Unlock()
	s.setSettings(resolveSettings(opts, "", sourceInit, s.cfg.Getenv))
	s.openSession(folders)
	s.log.Info("initialized", "client", p.ClientInfo.Name, "folders", folders)

	var res initializeResult
	res.ServerInfo.Name = "autarch"
	res.ServerInfo.Version = s.cfg.Version
	res.Capabilities.TextDocumentSync.OpenClose = true
	res.Capabilities.TextDocumentSync.Change = 1
	res.Capabilities.ExecuteCommandProvider.Commands = s.commandNames()
	res.Capabilities.CodeActionProvider = true
	res.Capabilities.Workspace.WorkspaceFolders.Supported = true
	res.Capabilities.Workspace.WorkspaceFolders.ChangeNotifications = true
	return res, nil
}

// openSession makes the session's domain now that the client is known.
func (s *Server) openSession(folders []string) {
	params := SessionParams{Editor: s.Client(), Document: s.docs.byPath, Diagnostics: s.editorDiagnostics(), Events: s.notifyEvent}
	var sess *app.Session
	if s.cfg.Session != nil {
		sess = s.cfg.Session(params)
	} else {
		sess = app.New(app.Config{Editor: params.Editor, Document: params.Document, Diagnostics: params.Diagnostics, Events: params.Events, Log: s.log})
	}
	sess.SetFolders(folders)
	s.mu.Lock()
	s.session = sess
	fleet := s.settings.fleet
	s.mu.Unlock()
	sess.SetFleet(fleet)
}

// editorDiagnostics asks the client for its diagnostics (autarch/diagnostics)
// when it declared it can; nil otherwise.
func (s *Server) editorDiagnostics() tools.Diagnostics {
	s.mu.Lock()
	ok := s.client.diagnostics
	s.mu.Unlock()
	if !ok {
		return nil
	}
	return func(ctx context.Context, paths []string) ([]editor.DiagnosticItem, error) {
		if paths == nil {
			paths = []string{}
		}
		var res editor.DiagnosticsResult
		if err := s.Client().Call(ctx, editor.MethodDiagnostics, editor.DiagnosticsParams{Paths: paths}, &res); err != nil {
			return nil, err
		}
		return res.Diagnostics, nil
	}
}

// initialized shows the latest review's diagnostics again: after a reload
// the editor has lost them.
func (s *Server) initialized(ctx context.Context, _ json.RawMessage) (any, error) {
	if d, err := s.domain(); err == nil {
		d.RestoreReview(ctx)
	}
	return nil, nil
}

func (s *Server) shutdown(ctx context.Context, _ json.RawMessage) (any, error) {
	s.mu.Lock()
	s.state = shutDown
	s.mu.Unlock()
	return nil, nil
}

// exit ends Serve: exit code 0 after shutdown, 1 without.
func (s *Server) exit(ctx context.Context, _ json.RawMessage) (any, error) {
	code := 1
	if s.is(shutDown) {
		code = 0
	}
	select {
	case s.exitCh <- code:
	default:
	}
	return nil, nil
}

// foldersOf lists the workspace folders as paths: workspaceFolders, else
// rootUri, else rootPath.
func foldersOf(p initializeParams) []string {
	var out []string
	for _, f := range p.WorkspaceFolders {
		if path, ok := uriPath(f.URI); ok {
			out = append(out, path)
		}
	}
	if len(out) == 0 {
		if path, ok := uriPath(p.RootURI); ok {
			out = append(out, path)
		} else if p.RootPath != "" {
			out = append(out, filepath.Clean(p.RootPath))
		}
	}
	return out
}

// uriPath converts a file:// URI to a path.
func uriPath(u string) (string, bool) {
	if !strings.HasPrefix(u, "file://") {
		return "", false
	}
	parsed, err := uri.Parse(u)
	if err != nil || !parsed.IsFile() {
		return "", false
	}
	path := parsed.FsPath()
	if path == "" {
		return "", false
	}
	return path, true
}

// pathURI converts a path to a file:// URI.
func pathURI(path string) string { return string(uri.File(path)) }
