package receipt

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/autarch-dev/autarch/tools/verify"
)

// maxListed bounds the findings Text lists per check.
const maxListed = 20

// Text is the receipt for a person to read: what ran, how it ended, and
// what failed, newly or before.
func (r Receipt) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Receipt of %s commit %s", r.Kind, r.Commit)
	if r.Run.ID != "" {
		fmt.Fprintf(&b, " (%s %s", r.Run.Kind, orID(r.Run))
		if r.Run.Step != "" {
			fmt.Fprintf(&b, ", %s", r.Run.Step)
		}
		b.WriteString(")")
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "  tree     %s\n", r.Tree)
	fmt.Fprintf(&b, "  parent   %s\n", orNone(r.Parent))
	fmt.Fprintf(&b, "  written  %s by Autarch %s (receipt version %d)\n", r.Created.Format(time.RFC3339), r.Autarch, r.Version)
	fmt.Fprintf(&b, "  gates    %s\n", r.Gates.describe())
	if len(r.Changed) > 0 {
		fmt.Fprintf(&b, "  changed  %s\n", listed(r.Changed, 10))
	}
	switch {
	case r.Skipped != "":
		fmt.Fprintf(&b, "No check ran: %s.\n", r.Skipped)
	case len(r.Checks) > 0:
		fmt.Fprintf(&b, "Checks (%s):\n", time.Duration(r.DurationMS)*time.Millisecond)
	}
	for _, c := range r.Checks {
		b.WriteString(c.line())
		writeFindings(&b, "newly failing", c.NewlyFailing)
		writeFindings(&b, "pre-existing", c.PreExisting)
	}
	writeFindings(&b, "newly passing (a baseline no check matched)", r.NewlyPassing)
	bl := "none"
	if n := len(r.Baseline.Items); n > 0 {
		bl = fmt.Sprintf("%d recorded", n)
	}
	if r.Baseline.Commit != "" {
		bl += " on " + r.Baseline.Commit
	}
	fmt.Fprintf(&b, "Baselines matched against: %s\n", bl)
	return b.String()
}

func orID(r Run) string {
	if r.Name != "" {
		return r.Name
	}
	return r.ID
}

func (g Gates) describe() string {
	if g.Off {
		return "off (turned off by the repository's configuration)"
	}
	kinds := "build, test, lint"
	if len(g.Kinds) > 0 {
		ks := make([]string, len(g.Kinds))
		for i, k := range g.Kinds {
			ks[i] = string(k)
		}
		kinds = strings.Join(ks, ", ")
	}
	scope := "what the change affects"
	if g.Full {
		scope = "the whole project"
	}
	s := kinds + " on " + scope
	if len(g.Paths) > 0 {
		s += ", for changes in " + strings.Join(g.Paths, ", ")
	}
	for _, k := range slices.Sorted(maps.Keys(g.Commands)) {
		s += fmt.Sprintf("; %s: `%s`", k, g.Commands[k])
	}
	return s
}

func (c Check) line() string {
	mark := map[string]string{verify.StatusPass: "✓", verify.StatusFail: "✗", verify.StatusError: "!"}[c.Status]
	if mark == "" {
		mark = "?"
	}
	s := fmt.Sprintf("  %s %s %s in %s: %s, exit %d, %s — `%s`", mark, c.Kind, c.Name, c.Dir, c.Status, c.ExitCode,
		time.Duration(c.DurationMS)*time.Millisecond, c.Command)
	if c.Kind == verify.Test {
		s += fmt.Sprintf(" (%d passed, %d failed, %d skipped)", c.Passed, c.Failed, c.Skipped)
	}
	if c.Error != "" {
		s += "\n      " + firstLine(c.Error)
	}
	return s + "\n"
}

func writeFindings(b *strings.Builder, title string, fs []Finding) {
	if len(fs) == 0 {
		return
	}
	fmt.Fprintf(b, "      %s:\n", title)
	for i, f := range fs {
		if i == maxListed {
			fmt.Fprintf(b, "        … and %d more (--json lists them all)\n", len(fs)-i)
			break
		}
		line := f.describe()
		if f.Baseline != "" {
			line += " (baseline " + f.Baseline + ")"
		}
		fmt.Fprintf(b, "        - %s\n", line)
	}
}

func listed(xs []string, n int) string {
	if len(xs) <= n {
		return strings.Join(xs, ", ")
	}
	return strings.Join(xs[:n], ", ") + fmt.Sprintf(" and %d more", len(xs)-n)
}

// Text says what Verify found, for a person.
func (r Result) Text() string {
	var b strings.Builder
	verdict := "OK: the receipt holds"
	if !r.OK {
		verdict = "FAILED: the receipt does not hold"
	}
	fmt.Fprintf(&b, "%s for commit %s (%s)\n", verdict, r.Commit, time.Duration(r.DurationMS)*time.Millisecond)
	for _, d := range r.Differences {
		fmt.Fprintf(&b, "  ✗ %s\n", d)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "  note: %s\n", n)
	}
	if len(r.Rerun) > 0 {
		b.WriteString("Checks run again:\n")
		for _, c := range r.Rerun {
			b.WriteString(c.line())
		}
	}
	return b.String()
}
