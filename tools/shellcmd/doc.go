// Package shellcmd analyses a shell command line before the shell tool runs
// it: what every command in it would do, whether the line is refused
// outright, and what it looks like once quoting and wrappers are stripped.
//
// The model. A command line is parsed as bash (mvdan.cc/sh/v3/syntax) and
// every simple command anywhere in the tree is visited: pipelines, lists,
// subshells, blocks, function bodies, if/while/for/case, command and
// process substitutions, the strings run by sh -c, bash -c, eval, trap
// and watch (parsed again, to a depth limit), the commands run by
// wrappers (env, nice, nohup, timeout, xargs, find -exec, ...), and the
// program a shell or interpreter reads from a here-document. Words are
// normalised the way the shell would see them: quotes and backslash
// escapes are removed ('rm', g\it, $'\x72m'), braces are expanded, a word
// is split where it expands $IFS unquoted (rm$IFS-rf$IFS/ is rm -rf /), a
// carriage return is part of a word as it is for bash, and a command
// name's directory is dropped (/usr/bin/rm is rm; a program run by a path
// outside the system directories is unknown). A command name that is a
// glob (/usr/bin/cur[l], c?rl, /usr/*/curl) is resolved, as the shell
// would expand it, to the programs in the PATH and system directories it
// matches (Command.Expands); absolute paths are judged as the kernel
// resolves them (//dev/sda and /dev/../dev/sda are /dev/sda), and a
// globbed operand by what it matches (/e* is /etc).
//
// Each command is put in one of three classes (spec/tool-engine.md,
// layer 2), by effect:
//
//   - Safe: provably read-only. Known query commands (ls, cat, grep,
//     git log, ...) without the options that make them write files or run
//     other programs (find -exec, sort -o, git --output, rg --pre, sed w,
//     awk system(), ...), and with no argument the classifier cannot know
//     statically, unless the command is harmless whatever its arguments.
//     Git commands that print file contents from the object store (git
//     show, cat-file, log -p, grep with a tree-ish or --cached, diff with
//     a revision or --cached, blame, archive, ...) are not safe: secret
//     files are masked in the worktree, not in history.
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
// process, powering the machine off. Fork bombs include endless loops that
// start a background job each time round and interpreter programs that
// fork in a loop (perl -e 'fork while 1'). It matches the normalised tree,
// so spacing, quoting, $IFS, globs, wrappers and sh -c do not hide a
// command.
//
// The normalised form of each command (Command.Forms: Command.String and
// one form per program a globbed name expands to) is also what
// user-defined blocked_commands patterns should be matched against, so that
// git -C . push, g\it push and /usr/bin/gi[t] push are all "git push"
// (see FirstMatch).
package shellcmd
