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
// blocked files (the gate's one decision, FileBlocked: a sensitive path or
// a secret anywhere in the content) come back as results.
func (s *Session) readText(rel, display string) (string, Result, bool) {
	data, res, ok := s.readBytes(rel, display)
	return string(data), res, ok
}

// readBytes is readText's content as read. The gate's verdict is cached by
// the file's version (FileBlockedStamp), so a file read again unchanged is
// not scanned again.
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
	data, stamp, err := s.root.ReadFileStamp(rel, workspace.MaxReadSize)
	if err != nil {
		return nil, errorResult(err.Error()), false
	}
	if reason, blocked := s.gate.FileBlockedStamp(rel, data, stamp); blocked {
		return nil, blockedResult(reason), false
	}
	return data, Result{}, true
}
