package tools

import (
	"errors"
	"io/fs"
)

// resolve cleans a model-given path and applies the sensitive-path gate.
// ok=false means res is the answer to give the model.
func (s *Session) resolve(p string) (rel string, res Result, ok bool) {
	rel, err := s.root.Clean(p)
	if err != nil {
		return "", errorResult(err.Error()), false
	}
	if reason, blocked := s.gate.PathBlocked(rel); blocked {
		return "", blockedResult(reason), false
	}
	return rel, Result{}, true
}

// readText reads a file for the model: missing, directory, binary and
// blocked files (the gate's one decision, FileBlocked: a sensitive path or
// a secret anywhere in the content) come back as results.
func (s *Session) readText(rel, display string) (string, Result, bool) {
	fi, err := s.root.Stat(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return "", errorResult("File not found: " + display), false
	}
	if err != nil {
		return "", errorResult(err.Error()), false
	}
	if fi.IsDir() {
		return "", errorResult(display + " is a directory; use list_directory"), false
	}
	data, err := s.root.ReadFile(rel)
	if err != nil {
		return "", errorResult(err.Error()), false
	}
	if reason, blocked := s.gate.FileBlocked(rel, data); blocked {
		return "", blockedResult(reason), false
	}
	return string(data), Result{}, true
}
