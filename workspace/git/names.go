package git

import (
	"fmt"
	"strings"
)

// Branch namespaces. A workflow named w lives on WorkflowPrefix+w; its
// pulses on PulsePrefix+w+"/"+pulseID. The two namespaces differ in their
// first component, so a workflow branch can never be the directory of a
// pulse branch (git refuses autarch/w next to autarch/w/pulse-1).
const (
	WorkflowPrefix = "autarch/"
	PulsePrefix    = "autarch-pulse/"
)

// maxNameLen bounds workflow names and pulse ids.
const maxNameLen = 100

// WorkflowBranch is the branch of the workflow named name.
func WorkflowBranch(name string) string { return WorkflowPrefix + name }

// PulseBranch is the branch of one pulse of a workflow.
func PulseBranch(workflow, pulseID string) string {
	return PulsePrefix + workflow + "/" + pulseID
}

// ValidateName checks a workflow name. It becomes a branch name component
// and a directory name, so only a safe subset is accepted: 1–100 ASCII
// letters, digits, '.', '_' or '-', starting with a letter or digit, without
// "..", not ending in '.' or ".lock". No '/': it would let one workflow's
// branch become the directory of another's.
func ValidateName(name string) error {
	if err := checkComponent(name); err != nil {
		return fmt.Errorf("workflow name %q is not accepted: %s (it becomes branch %s<name>)", name, err, WorkflowPrefix)
	}
	return nil
}

// ValidatePulseID checks a pulse id with the rules of ValidateName
// (e.g. "pulse-1").
func ValidatePulseID(id string) error {
	if err := checkComponent(id); err != nil {
		return fmt.Errorf("pulse id %q is not accepted: %s (it becomes branch %s<workflow>/<id>)", id, err, PulsePrefix)
	}
	return nil
}

const acceptedNames = "use 1–100 ASCII letters, digits, '.', '_' or '-', starting with a letter or digit"

func checkComponent(s string) error {
	switch {
	case s == "":
		return fmt.Errorf("it is empty; %s", acceptedNames)
	case len(s) > maxNameLen:
		return fmt.Errorf("it is %d characters long; %s", len(s), acceptedNames)
	case !isAlnum(s[0]):
		return fmt.Errorf("it must start with a letter or digit; %s", acceptedNames)
	case strings.Contains(s, ".."):
		return fmt.Errorf(`it must not contain ".."; %s`, acceptedNames)
	case strings.HasSuffix(s, ".") || strings.HasSuffix(s, ".lock"):
		return fmt.Errorf(`it must not end in "." or ".lock"; %s`, acceptedNames)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			return fmt.Errorf("non-ASCII characters are not allowed; %s", acceptedNames)
		}
		if !isAlnum(c) && c != '.' && c != '_' && c != '-' {
			return fmt.Errorf("character %q is not allowed; %s", rune(c), acceptedNames)
		}
	}
	return nil
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// maxSlugLen bounds the words of a name made from a task.
const maxSlugLen = 40

// fillers are words a name made from a task does not end on.
var fillers = map[string]bool{"a": true, "an": true, "the": true, "to": true, "and": true, "or": true, "of": true, "for": true,
	"in": true, "on": true, "at": true, "by": true, "with": true, "from": true, "into": true, "so": true, "that": true}

// NameForTask makes a workflow name from a task: its first whole words
// (at most 40 characters, never cut inside a word nor ending on a word
// such as "to" or "and"), lower-case ASCII joined by '-', then suffix
// (e.g. a random hex) after a '-'. "Add Sub and Mul to calc" with suffix
// "592f22" is add-sub-and-mul-to-calc-592f22.
func NameForTask(task, suffix string) string {
	words := strings.FieldsFunc(strings.ToLower(task), func(r rune) bool { return r > 0x7f || !isAlnum(byte(r)) })
	var kept []string
	n := 0
	for _, w := range words {
		if len(w) > maxSlugLen {
			w = w[:maxSlugLen] // one very long word: the only cut inside a word
		}
		if n+len(w) > maxSlugLen {
			break
		}
		kept = append(kept, w)
		n += len(w) + 1
	}
	for len(kept) > 1 && fillers[kept[len(kept)-1]] {
		kept = kept[:len(kept)-1]
	}
	slug := strings.Join(kept, "-")
	if slug == "" {
		slug = "workflow"
	}
	if suffix == "" {
		return slug
	}
	return slug + "-" + suffix
}
