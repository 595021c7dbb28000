package tools

import (
	"errors"
	"io/fs"

	"github.com/autarch-dev/autarch/workspace"
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
// blocked files (the gate's one door, ReadShown: a sensitive path, a
// secret anywhere in the content, or another name of a blocked file)
// come back as results.
func (s *Session) readText(rel, display string) (string, Result, bool) {
	data, res, ok := s.readBytes(rel, display)
	return string(data), res, ok
}

// readBytes is readText's content as read. The gate's verdict is cached by
// the file's version (FileBlockedStamp), so a file read again unchanged is
// not scanned again; its other names are checked on every read
// (AliasBlocked).
func (s *Session) readBytes(rel, display string) ([]byte, Result, bool) {
	fi, err := s.root.Stat(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errorResult("File not found: " + display), false
	}
	if err != nil {
		return nil, errorResult(err.Error()), false
	}
	if fi.IsDir() {
		return nil, errorResult(display + " is a directory; use list_directory"), false
	}
	data, _, err := s.gate.ReadShown(s.root, rel, workspace.MaxReadSize)
	if blocked := (*workspace.BlockedError)(nil); errors.As(err, &blocked) {
		return nil, blockedResult(blocked.Reason), false
	}
	if err != nil {
		return nil, errorResult(err.Error()), false
	}
	return data, Result{}, true
}
