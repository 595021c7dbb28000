package tools

import (
	"fmt"
	"strings"
)

// nearestMatch finds the region of content most like old, to tell the model
// where its oldString probably went wrong. It is a hint only: edits never
// apply fuzzily.
type nearestMatch struct {
	StartLine  int     `json:"start_line"`
	EndLine    int     `json:"end_line"`
	Text       string  `json:"text"`
	Similarity float64 `json:"similarity"`
}

// findNearest slides a window of old's line count over content and scores
// each window by the share of old's trimmed lines it contains.
func findNearest(content, old string) *nearestMatch {
	oldLines := strings.Split(strings.TrimRight(old, "\n"), "\n")
	lines := strings.Split(content, "\n")
	n := len(oldLines)
	if n == 0 || len(lines) == 0 || len(lines) > 200000 {
		return nil
	}
	want := make(map[string]int, n)
	for _, l := range oldLines {
		want[strings.TrimSpace(l)]++
	}
	best, bestAt := 0.0, -1
	for i := 0; i+n <= len(lines) || (i == 0 && len(lines) < n); i++ {
		end := min(i+n, len(lines))
		have := map[string]int{}
		hits := 0
		for _, l := range lines[i:end] {
			t := strings.TrimSpace(l)
			if have[t] < want[t] {
				hits++
			}
			have[t]++
		}
		score := float64(hits) / float64(n)
		if score > best {
			best, bestAt = score, i
		}
	}
	if bestAt < 0 || best < 0.3 {
		return nil
	}
	end := min(bestAt+n, len(lines))
	return &nearestMatch{StartLine: bestAt + 1, EndLine: end, Text: strings.Join(lines[bestAt:end], "\n"), Similarity: float64(int(best*100)) / 100}
}

// preview shortens a string for error messages.
func preview(s string) string {
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}

// applyEdit replaces old with new in content exactly; it reports how many
// times old occurs when that makes the edit fail.
func applyEdit(content, old, new string, all bool) (string, int, error) {
	count := strings.Count(content, old)
	switch {
	case count == 0:
		return "", 0, errNotFound
	case count > 1 && !all:
		return "", count, errMultiple
	}
	if all {
		return strings.ReplaceAll(content, old, new), count, nil
	}
	return strings.Replace(content, old, new, 1), 1, nil
}

var (
	errNotFound = fmt.Errorf("oldString not found")
	errMultiple = fmt.Errorf("oldString found multiple times")
)

// editTarget loads a file for editing, enforcing read-before-edit.
func (s *Session) editTarget(path string) (rel, content string, res Result, ok bool) {
	rel, res, ok = s.resolve(path)
	if !ok {
		return "", "", res, false
	}
	content, res, ok = s.readText(rel, path)
	if !ok {
		return "", "", res, false
	}
	if !s.WasRead(rel) {
		return "", "", errorResult("You must read " + path + " with read_file before editing it"), false
	}
	return rel, content, Result{}, true
}
