package tools

import (
	"github.com/autarch-dev/autarch/workspace/unidiff"
)

// filePatch is the hunks for one file.
type filePatch struct {
	oldPath, newPath string
	hunks            []unidiff.Edit
}

// parsePatch parses a unified diff of one or more files with the project's
// one parser (unidiff.ParsePatch, over go-gitdiff). It never panics;
// malformed input gives an error naming the line.
func parsePatch(text string) ([]filePatch, error) {
	fps, err := unidiff.ParsePatch(text)
	if err != nil {
		return nil, err
	}
	out := make([]filePatch, len(fps))
	for i, f := range fps {
		out[i] = filePatch{oldPath: f.OldPath, newPath: f.NewPath, hunks: f.Edits}
	}
	return out, nil
}

// applyHunks applies hunks to content in memory (unidiff.Apply): a hunk
// may have moved; the first that does not apply is reported, and nothing
// is returned.
func applyHunks(content string, hunks []unidiff.Edit) (string, error) {
	return unidiff.Apply(content, hunks)
}
