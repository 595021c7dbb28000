package shellcmd

import (
	"fmt"
	"regexp"
	"strings"
)

// Class is what running a command can do, from least to most risky.
type Class int

// The command classes of spec/tool-engine.md (layer 2).
const (
	Safe      Class = iota // provably read-only
	Dev                    // a known development tool
	Dangerous              // anything else
)

// String returns the spec's name of the class: "safe", "dev" or "dangerous".
func (c Class) String() string {
	switch c {
	case Safe:
		return "safe"
	case Dev:
		return "dev"
	}
	return "dangerous"
}

// Family names a group of blocked commands (layer 1).
type Family string

// The blocklist's families.
const (
	FamilyRecursiveRemoval Family = "recursive-removal"
	FamilyPrivilege        Family = "privilege-escalation"
	FamilyWorldWritable    Family = "world-writable"
	FamilyDownloadRun      Family = "download-run"
	FamilyDeviceWrite      Family = "device-write"
	FamilyFormat           Family = "disk-format"
	FamilyForkBomb         Family = "fork-bomb"
	FamilyKillAll          Family = "kill-all"
	FamilyPower            Family = "power"
)

// Block says why a command line is refused in every mode.
type Block struct {
	Family  Family
	Reason  string // readable, e.g. "sudo: privilege escalation"
	Command string // the normalised command that matched
}

// Command is one simple command of a line, normalised.
type Command struct {
	// Argv is the command's words with quoting and escapes removed;
	// Argv[0] is the command name without its directory. A word holding an
	// expansion keeps it as written ($HOME, $(cmd)).
	Argv []string
	// Path is the command name as written, unquoted (/usr/bin/rm).
	Path   string
	Class  Class
	Reason string // why the command is not safe; "" when it is
	// Depth is 0 for a command of the line itself, one more for each
	// wrapper, sh -c or eval it is reached through.
	Depth int
	// Wrapper is set when the command runs another one (env, timeout,
	// xargs, sh -c ...), listed after it.
	Wrapper bool
	// Expands lists, for a command name that is a glob (/usr/bin/cur[l],
	// c?rl), the programs on the system it can expand to (curl).
	Expands []string

	readsProgram bool // a shell or interpreter reading its program from stdin
	nameUnknown  bool // the name is an expansion only known at run time
}

// Name is the command name without its directory.
func (c Command) Name() string {
	if len(c.Argv) == 0 {
		return ""
	}
	return c.Argv[0]
}

// String is the normalised command: its words joined by single spaces,
// with git's global options removed (git -C . push origin is
// "git push origin").
func (c Command) String() string {
	if c.Name() == "git" {
		return strings.Join(append([]string{"git"}, gitSubcommand(c.Argv[1:])...), " ")
	}
	return strings.Join(c.Argv, " ")
}

// Analysis is what a command line does.
type Analysis struct {
	Class   Class
	Reason  string // why the line has its class; "" when safe
	Blocked *Block // non-nil when the line is refused in every mode
	// Commands lists every simple command in source order, each wrapper
	// followed by the command it runs.
	Commands []Command
	Err      error // the parse error when the line is not valid bash
	// rough are, for a line that does not parse, the commands it might
	// run once split roughly: every suffix of every segment, globbed
	// names expanded (see fallback).
	rough []string
}

// Single returns the command a line runs when it runs exactly one (its
// wrappers aside): env go test is go test.
func (a Analysis) Single() (Command, bool) {
	var found Command
	n := 0
	for _, c := range a.Commands {
		if !c.Wrapper {
			found = c
			n++
		}
	}
	return found, n == 1
}

// Normalized is the line's commands in normalised form, wrappers aside,
// joined by "; ".
func (a Analysis) Normalized() string {
	var parts []string
	for _, c := range a.Commands {
		if !c.Wrapper {
			parts = append(parts, c.String())
		}
	}
	return strings.Join(parts, "; ")
}

// Analyze parses command as bash and classifies it. It never panics: a
// line it cannot analyse is dangerous.
func Analyze(command string) (res Analysis) {
	defer func() {
		if r := recover(); r != nil {
			res = Analysis{Class: Dangerous, Reason: "the command could not be analysed", Err: fmt.Errorf("analysing the command: %v", r)}
		}
	}()
	a := &analyzer{}
	a.script(command, 0)
	if a.res.Blocked != nil {
		a.res.Reason = a.res.Blocked.Reason
	}
	return a.res
}

// Forms returns the command's normalised form and, for a globbed command
// name, the form for each program the glob can expand to.
func (c Command) Forms() []string {
	out := []string{c.String()}
	for _, name := range c.Expands {
		e := c
		e.Argv = append([]string{name}, c.Argv[1:]...)
		e.Expands = nil
		out = append(out, e.String())
	}
	return out
}

// Commands returns the normalised form of every simple command in command
// (Command.Forms), wrappers and the commands they run alike; nil when it
// does not parse.
func Commands(command string) []string {
	res := Analyze(command)
	out := make([]string, 0, len(res.Commands))
	for _, c := range res.Commands {
		out = append(out, c.Forms()...)
	}
	return out
}

// FirstMatch returns the first pattern matching command, either its raw
// text or the normalised form of any simple command in it (a globbed
// command name in each of its expansions; for a line that does not parse,
// every rough split of it), and the form it matched; nil when none does.
// It is how user-defined blocked_commands are checked, so that
// git -C . push, g\it push and sh -c 'git push' all match "git push".
func FirstMatch(command string, patterns []*regexp.Regexp) (*regexp.Regexp, string) {
	if len(patterns) == 0 {
		return nil, ""
	}
	res := Analyze(command)
	forms := append([]string{command}, res.rough...)
	for _, c := range res.Commands {
		forms = append(forms, c.Forms()...)
	}
	for _, re := range patterns {
		for _, f := range forms {
			if re.MatchString(f) {
				return re, f
			}
		}
	}
	return nil, ""
}

// UnknownName returns the first command of the line whose name is only
// known at run time ($X, "$(cmd)"), which no pattern can be matched
// against; "" when every name is written out.
func (a Analysis) UnknownName() string {
	for _, c := range a.Commands {
		if c.nameUnknown {
			return c.Path
		}
	}
	return ""
}
