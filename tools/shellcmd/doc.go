// Package shellcmd analyses a shell command line before the shell tool runs
// it: what every command in it would do, whether the line is refused
// outright, and what it looks like once quoting and wrappers are stripped.
//
// The model. A command line is parsed as bash (mvdan.cc/sh/v3/syntax) and
// every simple command anywhere in the tree is visited: pipelines, lists,
// subshells, blocks, function bodies, if/while/for/case, command and
// process substitutions, the strings run by sh -c, bash -c, eval, trap
// and watch (parsed again, to a depth limit), the commands run by
// wrappers (env, nice, nohup, timeout, xargs, find -exec, ...). Words are
// normalised the way the shell would see them: quotes and backslash
// escapes are removed ('rm', g\it, $'\x72m'), braces are expanded, and a
// command name's directory is dropped (/usr/bin/rm is rm; a program run
// by a path outside the system directories is unknown).
//
// Each command is put in one of three classes (spec/tool-engine.md,
// layer 2), by effect:
//
//   - Safe: provably read-only. Known query commands (ls, cat, grep,
//     git log, ...) without the options that make them write files or run
//     other programs (find -exec, sort -o, git --output, rg --pre, sed w,
//     awk system(), ...), and with no argument the classifier cannot know
//     statically, unless the command is harmless whatever its arguments.
//   - Dev: known development tools (go test, make, npm run, pytest, ...).
//     They run project code, so they are confirmed but not refused.
//   - Dangerous: anything else, including a command name only known at run
//     time, a redirection into a file, and a line that does not parse.
//
// A line's class is that of its least safe part.
//
// Independently, a blocklist (layer 1) refuses families of destructive
// commands in every mode: recursive removal of / or the home directory,
// privilege escalation, world-writable permissions, a download run by a
// shell, writes to disk devices, formatting, fork bombs, killing every
// process, powering the machine off. It matches the normalised tree, so
// spacing, quoting, wrappers and sh -c do not hide a command.
//
// The normalised form of each command (Command.String) is also what
// user-defined blocked_commands patterns should be matched against, so that
// git -C . push and g\it push are both "git push" (see FirstMatch).
package shellcmd
