package swarm

import (
	"bytes"
	"context"
	"regexp"

	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/workspace"
	"github.com/autarch-dev/autarch/workspace/textsearch"
)

type searchTextParams struct {
	Reason     string `json:"reason"`
	Pattern    string `json:"pattern" jsonschema:"Regular expression, matched line by line"`
	Dir        string `json:"dir,omitempty" jsonschema:"Directory to search, relative to the project root (default .)"`
	MaxMatches *int   `json:"max_matches,omitempty" jsonschema:"At most this many matches (default 200)"`
}

type textMatch struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Text string `json:"text"`
}

// maxLineText caps a match's text.
const maxLineText = 500

func newSearchText(b binding) tools.Tool {
	return define(b, tools.Traits{Effect: tools.EffectSearch, Category: tools.CategoryReadOnly}, "search_text", func(ctx context.Context, sess *tools.Session, p searchTextParams) (any, error) {
		limit, err := positive(p.MaxMatches, 200, "max_matches")
		if err != nil {
			return nil, err
		}
		if p.Pattern == "" {
			return nil, badInput("pattern is empty: give a regular expression, e.g. def main")
		}
		if len(p.Pattern) > textsearch.MaxPatternBytes { // before regexp.Compile, which is slow on it
			return nil, badInput("pattern is %d bytes, more than the %d allowed: search for a shorter, distinctive part of it",
				len(p.Pattern), textsearch.MaxPatternBytes)
		}
		if _, err := regexp.Compile(p.Pattern); err != nil {
			return nil, badInput("pattern %q is not a regular expression: %v", p.Pattern, err)
		}
		pat, err := textsearch.Compile(p.Pattern, true, false)
		if err != nil {
			return nil, badInput("pattern %q: %v", p.Pattern, err)
		}
		sc := pat.NewSearcher()
		matches := newFirstN[textMatch](limit)
		var starts []int
		err = walkFiles(ctx, sess, p.Dir, func(rel string) error {
			data, stamp, err := sess.Root().ReadFileStamp(rel, workspace.MaxReadSize)
			if err != nil || workspace.IsBinary(data) {
				return nil // unreadable, too large or binary: not text to search
			}
			if starts = sc.MatchLines(starts[:0], data); len(starts) == 0 {
				return nil
			}
			// a file with a secret anywhere yields nothing, whatever matched
			if _, blocked := sess.Gate().ShownBlocked(sess.Root(), rel, data, stamp); blocked {
				return nil
			}
			line, pos := 1, 0
			for _, st := range starts {
				line += bytes.Count(data[pos:st], []byte{'\n'})
				pos = st
				matches.addFunc(func() textMatch { return textMatch{File: rel, Line: line, Text: lineAt(data, st)} })
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		out := matches.answer("matches")
		if sc.Exhausted() {
			out["incomplete"] = "the search stopped early: this regular expression costs too much on these files " +
				"(a long repetition such as [a-z]{500}), so matches may be missing; search for a literal part instead"
		}
		return out, nil
	})
}

// lineAt is the line starting at off, without its newline, capped.
func lineAt(data []byte, off int) string {
	end := bytes.IndexByte(data[off:], '\n')
	if end < 0 {
		end = len(data) - off
	}
	line := bytes.TrimRight(data[off:off+end], "\r")
	if len(line) > maxLineText {
		return string(bytes.ToValidUTF8(line[:maxLineText], nil)) + "…"
	}
	return string(line)
}
