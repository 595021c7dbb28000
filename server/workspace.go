package server

import (
	"context"
	"encoding/json"

	"go.lsp.dev/jsonrpc2"

	"github.com/autarch-dev/autarch/editor"
)

func (s *Server) registerWorkspace() {
	s.requests["workspace/executeCommand"] = s.executeCommand
	s.notifs["workspace/didChangeConfiguration"] = s.didChangeConfiguration
	s.notifs["workspace/didChangeWorkspaceFolders"] = s.didChangeWorkspaceFolders
}

func (s *Server) executeCommand(ctx context.Context, raw json.RawMessage) (any, error) {
	var p struct {
		Command   string            `json:"command"`
		Arguments []json.RawMessage `json:"arguments"`
	}
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	fn, ok := s.commands[p.Command]
	if !ok {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "unknown command %q; the server offers %v", p.Command, s.commandNames())
	}
	return fn(ctx, p.Arguments)
}

func (s *Server) didChangeConfiguration(ctx context.Context, raw json.RawMessage) error {
	var p struct {
		Settings struct {
			Autarch *editor.Settings `json:"autarch"`
		} `json:"settings"`
	}
	if err := decode(raw, &p); err != nil {
		return err
	}
	if p.Settings.Autarch == nil {
		return nil // not ours
	}
	s.mu.Lock()
	s.settings = resolveSettings(*p.Settings.Autarch, sourceChange, s.cfg.Getenv)
	s.mu.Unlock()
	s.log.Info("settings changed", "model", p.Settings.Autarch.Model.Name)
	return s.conn.Notify(ctx, editor.MethodStatusChanged, s.status())
}

func (s *Server) didChangeWorkspaceFolders(ctx context.Context, raw json.RawMessage) error {
	var p struct {
		Event struct {
			Added   []workspaceDir `json:"added"`
			Removed []workspaceDir `json:"removed"`
		} `json:"event"`
	}
	if err := decode(raw, &p); err != nil {
		return err
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
	s.mu.Unlock()
	return s.conn.Notify(ctx, editor.MethodStatusChanged, s.status())
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
