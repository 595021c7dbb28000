package server

import (
	"context"
	"encoding/json"

	"go.lsp.dev/jsonrpc2"

	"github.com/autarch-dev/autarch/editor"
)

// executeCommand runs a command of the method table with its one argument.
func (s *Server) executeCommand(ctx context.Context, raw json.RawMessage) (any, error) {
	var p struct {
		Command   string            `json:"command"`
		Arguments []json.RawMessage `json:"arguments"`
	}
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	m, ok := s.methods[p.Command]
	if !ok || m.kind != command {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "unknown command %q; the server offers %v", p.Command, s.commandNames())
	}
	var arg json.RawMessage
	switch len(p.Arguments) {
	case 0:
	case 1:
		arg = p.Arguments[0]
	default:
		return nil, invalidParams("%s takes one argument, got %d", p.Command, len(p.Arguments))
	}
	return s.result(ctx, p.Command)(m.fn(s, ctx, arg))
}

// didChangeConfiguration takes the autarch section of the settings. An
// apiKey there is ignored: settings travel in protocol traces.
func (s *Server) didChangeConfiguration(ctx context.Context, raw json.RawMessage) (any, error) {
	var p struct {
		Settings struct {
			Autarch *editor.Settings `json:"autarch"`
		} `json:"settings"`
	}
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	if p.Settings.Autarch == nil {
		return nil, nil // not ours
	}
	s.mu.Lock()
	key, keySource := s.settings.apiKey, s.settings.keySource
	s.mu.Unlock()
	if keySource != sourceRequest {
		key = ""
	}
	s.setSettings(resolveSettings(*p.Settings.Autarch, key, sourceChange, s.cfg.Getenv))
	s.log.Info("settings changed", "model", p.Settings.Autarch.Model.Name)
	return nil, s.Client().Notify(ctx, editor.MethodStatusChanged, s.status())
}

func (s *Server) didChangeWorkspaceFolders(ctx context.Context, raw json.RawMessage) (any, error) {
	var p struct {
		Event struct {
			Added   []workspaceDir `json:"added"`
			Removed []workspaceDir `json:"removed"`
		} `json:"event"`
	}
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	s.mu.Lock()
	for _, f := range p.Event.Removed {
		if path, ok := uriPath(f.URI); ok {
			s.folders = removeString(s.folders, path)
		}
	}
	for _, f := range p.Event.Added {
		if path, ok := uriPath(f.URI); ok {
			s.folders = append(removeString(s.folders, path), path)
		}
	}
	folders, sess := append([]string(nil), s.folders...), s.session
	s.mu.Unlock()
	if sess != nil {
		sess.SetFolders(folders)
	}
	return nil, s.Client().Notify(ctx, editor.MethodStatusChanged, s.status())
}

// didChangeWatchedFiles re-indexes files created, changed or deleted
// outside the editor's buffers.
func (s *Server) didChangeWatchedFiles(ctx context.Context, raw json.RawMessage) (any, error) {
	var p struct {
		Changes []struct {
			URI string `json:"uri"`
		} `json:"changes"`
	}
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	var paths []string
	for _, c := range p.Changes {
		if path, ok := uriPath(c.URI); ok {
			paths = append(paths, path)
		}
	}
	if d, err := s.domain(); err == nil {
		d.FilesChanged(paths...)
	}
	return nil, nil
}

func removeString(list []string, v string) []string {
	out := list[:0]
	for _, x := range list {
		if x != v {
			out = append(out, x)
		}
	}
	return out
}
