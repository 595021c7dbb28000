package editor

import (
	"fmt"
	"strconv"
	"strings"
)

// This file is the one reader of what a person types in answer to an
// approval or a question, whatever the surface (the CLI's terminal, an ACP
// client's next prompt, the swarm's arbiter prompt): every surface accepts
// the same forms and refuses the same ones.

// decisionWord is the decision a typed word (lower case) stands for.
func decisionWord(word string) (Decision, bool) {
	switch word {
	case "approve", "approved", "y", "yes", "ok", "okay", "lgtm", "go", "go ahead":
		return DecisionApprove, true
	case "w", "always", "always allow":
		return DecisionAlwaysAllow, true
	case "x", "abort":
		return DecisionAbort, true
	case "r", "reject", "n", "no":
		return DecisionReject, true
	}
	return "", false
}

// ParseDecision reads a typed answer to an approval: approve (approve,
// approved, y, yes, ok, okay, lgtm, go, go ahead), always allow (w,
// always, always allow: only when the approval offers it), abort (x,
// abort: only when offered) or reject (r, reject, n, no), in any case,
// surrounding spaces and a final "." or "!" ignored. ok is false for
// anything else, which is no decision (a surface may read it as feedback).
func ParseDecision(text string, a Approval) (d Decision, ok bool) {
	word := strings.ToLower(strings.Trim(strings.TrimSpace(text), ".!"))
	d, ok = decisionWord(strings.Join(strings.Fields(word), " "))
	switch {
	case !ok:
		return "", false
	case d == DecisionAlwaysAllow && !a.AllowAlways, d == DecisionAbort && !a.AllowAbort:
		return "", false
	}
	return d, true
}

// ParseAnswer reads a typed answer to a question. A free-text question (or
// one without options) takes the text as it is. Otherwise each choice is
// an option's number (from 1) or its name in any case; several choices
// (multi-select, ranked) are separated by commas, or by spaces when they
// are all numbers. A single-select question takes exactly one choice, a
// ranked one every option once, best first. The error says what does not
// fit and how to answer; an empty answer is an error too.
func ParseAnswer(q Question, text string) (Answer, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return Answer{}, fmt.Errorf("no answer to %q", q.Prompt)
	}
	if q.Type == FreeText || len(q.Options) == 0 {
		return Answer{Values: []string{text}}, nil
	}
	parts := []string{text}
	if q.Type == MultiSelect || q.Type == Ranked || allNumbers(strings.Fields(text)) {
		parts = splitChoices(text)
	}
	vals := make([]string, 0, len(parts))
	for _, p := range parts {
		o, ok := option(q.Options, p)
		if !ok {
			return Answer{}, fmt.Errorf("%q is not one of the options of %q (%s): answer with an option's number or name", p, q.Prompt, numbered(q.Options))
		}
		vals = append(vals, o)
	}
	switch q.Type {
	case MultiSelect:
		if len(vals) == 0 {
			return Answer{}, fmt.Errorf("no option chosen for %q: give one or more numbers", q.Prompt)
		}
	case Ranked:
		if !isPermutation(vals, q.Options) {
			return Answer{}, fmt.Errorf("%q ranks every option once, best first: give all %d numbers (%s)", q.Prompt, len(q.Options), numbered(q.Options))
		}
	default:
		if len(vals) != 1 {
			return Answer{}, fmt.Errorf("%q takes one option: give one number (%s)", q.Prompt, numbered(q.Options))
		}
	}
	return Answer{Values: vals}, nil
}

// splitChoices splits several choices: at commas when there are any, else
// at spaces.
func splitChoices(text string) []string {
	var out []string
	sep := strings.Fields
	if strings.Contains(text, ",") {
		sep = func(s string) []string { return strings.Split(s, ",") }
	}
	for _, p := range sep(text) {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func allNumbers(fields []string) bool {
	for _, f := range fields {
		if _, err := strconv.Atoi(f); err != nil {
			return false
		}
	}
	return len(fields) > 0
}

// option is the option a choice names, by number or by name.
func option(options []string, choice string) (string, bool) {
	if n, err := strconv.Atoi(choice); err == nil {
		if n >= 1 && n <= len(options) {
			return options[n-1], true
		}
		return "", false
	}
	for _, o := range options {
		if strings.EqualFold(o, choice) {
			return o, true
		}
	}
	return "", false
}

func isPermutation(vals, options []string) bool {
	if len(vals) != len(options) {
		return false
	}
	seen := map[string]bool{}
	for _, v := range vals {
		if seen[v] {
			return false
		}
		seen[v] = true
	}
	return true
}

// numbered lists options as "1) a, 2) b".
func numbered(options []string) string {
	parts := make([]string, len(options))
	for i, o := range options {
		parts[i] = fmt.Sprintf("%d) %s", i+1, o)
	}
	return strings.Join(parts, ", ")
}
