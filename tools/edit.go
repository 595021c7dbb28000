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
// each window by the mean similarity (Dice coefficient of character
// bigrams, ignoring surrounding whitespace) of its lines to old's lines.
func findNearest(content, old string) *nearestMatch {
	oldLines := strings.Split(strings.TrimRight(old, "\n"), "\n")
	lines := strings.Split(content, "\n")
	n := len(oldLines)
	if n == 0 || len(lines) < n || len(lines)*n > 2_000_000 {
		return nil
	}
	oldGrams := make([]map[string]int, n)
	for j, l := range oldLines {
		oldGrams[j] = bigrams(l)
	}
	lineGrams := make([]map[string]int, len(lines))
	for i, l := range lines {
		lineGrams[i] = bigrams(l)
	}
	best, bestAt := 0.0, -1
	for i := 0; i+n <= len(lines); i++ {
		sum := 0.0
		for j := 0; j < n; j++ {
			sum += dice(oldGrams[j], lineGrams[i+j])
		}
		if score := sum / float64(n); score > best {
			best, bestAt = score, i
		}
	}
	if bestAt < 0 || best < 0.5 {
		return nil
	}
	return &nearestMatch{StartLine: bestAt + 1, EndLine: bestAt + n, Text: strings.Join(lines[bestAt:bestAt+n], "\n"), Similarity: float64(int(best*100)) / 100}
}

func bigrams(s string) map[string]int {
	s = strings.TrimSpace(s)
	m := make(map[string]int, len(s))
	for i := 0; i+2 <= len(s); i++ {
		m[s[i:i+2]]++
	}
	return m
}

func dice(a, b map[string]int) float64 {
	na, nb, common := 0, 0, 0
	for g, c := range a {
		na += c
		common += min(c, b[g])
	}
	for _, c := range b {
		nb += c
	}
	if na+nb == 0 {
		return 1
	}
	return 2 * float64(common) / float64(na+nb)
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
