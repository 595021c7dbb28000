package shellcmd

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// maxDepth bounds how deep sh -c strings, eval and wrappers are followed.
const maxDepth = 8

// crMark stands for a carriage return while a line is parsed: a private
// use character the parser takes as part of a word, as bash takes \r.
const crMark = "\uE00D"

// verdict is a class and the reason for it.
type verdict struct {
	class  Class
	reason string
}

func safe() verdict { return verdict{} }

func dev() verdict { return verdict{class: Dev, reason: "a development tool: it runs project code"} }

func dangerous(format string, args ...any) verdict {
	return verdict{class: Dangerous, reason: fmt.Sprintf(format, args...)}
}

// worst returns the least safe of v and w, keeping the first reason.
func (v verdict) worst(w verdict) verdict {
	if w.class > v.class {
		return w
	}
	return v
}

// analyzer accumulates the analysis of one line.
type analyzer struct {
	res Analysis
	cur verdict // of the script being analysed
}

// note records v against the script being analysed and the line.
func (a *analyzer) note(v verdict) {
	a.cur = a.cur.worst(v)
	if v.class > a.res.Class {
		a.res.Class, a.res.Reason = v.class, v.reason
	}
}

// block records the first blocklist match.
func (a *analyzer) block(f Family, reason, command string) {
	if a.res.Blocked == nil {
		a.res.Blocked = &Block{Family: f, Reason: reason, Command: command}
	}
	a.note(dangerous("%s", reason))
}

// script analyses a whole script and returns its verdict.
func (a *analyzer) script(src string, depth int) verdict {
	saved := a.cur
	a.cur = safe()
	defer func() { a.cur = saved.worst(a.cur) }()
	if depth > maxDepth {
		a.note(dangerous("commands nested too deeply to analyse"))
		return a.cur
	}
	// Bash takes a carriage return as part of a word; the parser takes it
	// as a blank (for CRLF scripts), which would split of=/tmp/\r/../dev/sda
	// differently than bash runs it. It is parsed as a word character
	// instead and given back as \r in the words (see literal).
	src = strings.ReplaceAll(src, "\r", crMark)
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		if depth == 0 {
			a.res.Err = fmt.Errorf("parsing the command: %w", err)
		}
		a.note(dangerous("the command cannot be parsed (%v), so it cannot be shown to be safe", err))
		a.fallback(src, depth)
		return a.cur
	}
	a.file(f, depth)
	return a.cur
}

// scope is what one parsed script knows.
type scope struct {
	funcs map[string]bool             // functions it defines
	calls map[*syntax.CallExpr][2]int // a call's range in Commands
	depth int
}

func (a *analyzer) file(f *syntax.File, depth int) {
	sc := &scope{funcs: map[string]bool{}, calls: map[*syntax.CallExpr][2]int{}, depth: depth}
	var pipes []*syntax.BinaryCmd
	var fed []*syntax.Stmt // statements whose input is a download
	inPipe := map[*syntax.BinaryCmd]bool{}
	syntax.Walk(f, func(n syntax.Node) bool {
		if fd, ok := n.(*syntax.FuncDecl); ok && fd.Name != nil {
			sc.funcs[fd.Name.Value] = true
			if forkBomb(fd.Name.Value, fd.Body) {
				a.block(FamilyForkBomb, "a fork bomb: the function "+fd.Name.Value+" starts copies of itself", fd.Name.Value)
			}
		}
		return true
	})
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Stmt:
			if a.redirects(n) {
				fed = append(fed, n)
			}
		case *syntax.BinaryCmd:
			if (n.Op == syntax.Pipe || n.Op == syntax.PipeAll) && !inPipe[n] {
				pipes = append(pipes, n)
				for x := n; x != nil; {
					inPipe[x] = true
					next, _ := x.X.Cmd.(*syntax.BinaryCmd)
					if next == nil || next.Op != syntax.Pipe && next.Op != syntax.PipeAll {
						break
					}
					x = next
				}
			}
		case *syntax.CallExpr:
			start := len(a.res.Commands)
			a.call(n, sc)
			sc.calls[n] = [2]int{start, len(a.res.Commands)}
		case *syntax.DeclClause:
			a.decl(n)
		case *syntax.WhileClause, *syntax.ForClause:
			if endlessSpawn(n) {
				a.block(FamilyForkBomb, "a fork bomb: an endless loop starts a background job each time round", show(n))
			}
		}
		return true
	})
	for _, p := range pipes {
		a.pipeline(p, sc)
	}
	for _, st := range fed {
		if c, ok := st.Cmd.(*syntax.CallExpr); ok {
			if r, ok := sc.calls[c]; ok {
				for _, cmd := range a.res.Commands[r[0]:r[1]] {
					if cmd.readsProgram {
						a.block(FamilyDownloadRun, "running downloaded code: "+cmd.Name()+" reads a download", show(st))
					}
				}
			}
		}
	}
	a.heredocPrograms(f, sc)
}

// heredocPrograms analyses the program a shell or interpreter reads from a
// here-document or here-string (bash <<< 'rm -rf /', python3 <<EOF ...),
// as if it were given with -c.
func (a *analyzer) heredocPrograms(f *syntax.File, sc *scope) {
	syntax.Walk(f, func(n syntax.Node) bool {
		st, ok := n.(*syntax.Stmt)
		if !ok {
			return true
		}
		c, ok := st.Cmd.(*syntax.CallExpr)
		if !ok {
			return true
		}
		r, ok := sc.calls[c]
		if !ok {
			return true
		}
		for _, rd := range st.Redirs {
			var body *syntax.Word
			switch rd.Op {
			case syntax.Hdoc, syntax.DashHdoc:
				body = rd.Hdoc
			case syntax.WordHdoc:
				body = rd.Word
			}
			if body == nil {
				continue
			}
			text := literal(body).text
			for _, cmd := range a.res.Commands[r[0]:r[1]] {
				switch {
				case !cmd.readsProgram:
				case shellName(cmd.Name()):
					a.script(text, sc.depth+1)
				case forksInLoop(text):
					a.block(FamilyForkBomb, "a fork bomb: "+cmd.Name()+"'s program forks in a loop", cmd.String())
				}
			}
		}
		return true
	})
}

// call analyses one simple command.
func (a *analyzer) call(c *syntax.CallExpr, sc *scope) {
	if len(c.Args) == 0 {
		for _, as := range c.Assigns {
			a.note(assignVerdict(as, true))
		}
		return
	}
	ws := words(c.Args)
	if len(ws) == 0 {
		return
	}
	name := ws[0]
	if name.static && sc.funcs[name.text] {
		// A function of this script: its body is analysed where defined.
		a.res.Commands = append(a.res.Commands, Command{Argv: texts(ws), Path: name.text, Depth: sc.depth})
		return
	}
	var env verdict
	for _, as := range c.Assigns {
		env = env.worst(assignVerdict(as, false))
	}
	v := a.run(ws, sc.depth, env)
	a.note(v)
}

// run classifies one command given as words, recording it (and what it
// wraps) in Commands. env is the verdict of its environment assignments.
func (a *analyzer) run(ws []word, depth int, env verdict) verdict {
	if len(ws) == 0 {
		return safe()
	}
	idx := len(a.res.Commands)
	a.res.Commands = append(a.res.Commands, Command{Argv: texts(ws), Path: ws[0].text, Depth: depth})
	if depth > maxDepth {
		v := dangerous("commands nested too deeply to analyse")
		a.res.Commands[idx].Class, a.res.Commands[idx].Reason = v.class, v.reason
		return v
	}
	name := commandName(ws[0])
	if ws[0].static {
		a.res.Commands[idx].Argv[0] = name
	}
	a.res.Commands[idx].nameUnknown = !ws[0].static && ws[0].pattern == "" && !ws[0].added
	a.blocklist(name, ws[1:], idx)
	if ws[0].pattern != "" {
		a.res.Commands[idx].Expands = globCommands(ws[0].pattern)
		for _, n := range a.res.Commands[idx].Expands {
			a.blocklist(n, ws[1:], idx)
		}
	}
	v := a.classify(name, ws, depth, idx)
	if env.class == Dangerous || env.class == Dev && v.class == Safe {
		v = v.worst(dangerous("%s", env.reason))
	}
	a.res.Commands[idx].Class, a.res.Commands[idx].Reason = v.class, v.reason
	if v.class == Safe {
		a.res.Commands[idx].Reason = ""
	}
	return v
}

// commandName is the name a command is classified by: unquoted, without
// its directory.
func commandName(w word) string {
	if i := strings.LastIndexByte(w.text, '/'); i >= 0 && w.static {
		return w.text[i+1:]
	}
	return w.text
}

// trustedDir reports whether a program path is in a system directory, so
// that /usr/bin/grep is grep.
func trustedDir(p string) bool {
	i := strings.LastIndexByte(p, '/')
	switch p[:i+1] {
	case "/bin/", "/sbin/", "/usr/bin/", "/usr/sbin/", "/usr/local/bin/", "/usr/local/sbin/", "/opt/homebrew/bin/":
		return true
	}
	return false
}

// redirects checks a statement's redirections: writes to files are not
// safe, writes to disk devices are blocked. It reports whether the
// statement's input is a download.
func (a *analyzer) redirects(st *syntax.Stmt) (fed bool) {
	for _, r := range st.Redirs {
		if r.Word == nil {
			continue
		}
		w := literal(r.Word)
		switch r.Op {
		case syntax.RdrIn:
			fed = fed || containsDownload(r.Word)
			continue
		case syntax.DplOut:
			if isFD(w.text) {
				continue
			}
		case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.AppClob, syntax.RdrAll, syntax.AppAll,
			syntax.RdrAllClob, syntax.AppAllClob, syntax.RdrInOut:
		default:
			continue
		}
		switch {
		case !w.static:
			a.note(dangerous("writes to a file only known at run time (%s)", w.text))
		case harmlessSink(w.text):
		case diskDevice(w.text):
			a.block(FamilyDeviceWrite, "writing to the disk device "+w.text, show(st))
		default:
			a.note(dangerous("writes to the file %s", w.text))
		}
	}
	return fed
}

// isFD reports whether a >& target is a file descriptor (or - to close).
func isFD(s string) bool {
	if s == "-" {
		return true
	}
	return digits(strings.TrimSuffix(s, "-"))
}

// harmlessSink reports whether writing to p changes nothing.
func harmlessSink(p string) bool {
	switch cleanPath(p) {
	case "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/fd/1", "/dev/fd/2", "/dev/zero":
		return true
	}
	return false
}

// decl checks export, declare, local, readonly and typeset.
func (a *analyzer) decl(d *syntax.DeclClause) {
	for _, as := range d.Args {
		if as.Naked && as.Name == nil && as.Value != nil {
			w := literal(as.Value)
			if !w.static {
				a.note(dangerous("%s sets a variable only known at run time", d.Variant.Value))
			}
			continue
		}
		a.note(assignVerdict(as, true))
	}
}

// assignVerdict classifies a variable assignment. standalone assignments
// last for the rest of the line; others are a command's environment, where
// variables that only matter to some tools are let through for dev tools.
func assignVerdict(as *syntax.Assign, standalone bool) verdict {
	if as.Name == nil {
		return safe()
	}
	name := as.Name.Value
	value := ""
	if as.Value != nil {
		value = literal(as.Value).text
	}
	switch sensitiveVar(name, value) {
	case varShell:
		return dangerous("sets %s, which changes what programs run", name)
	case varTool:
		if standalone {
			return dangerous("sets %s, which changes what programs run", name)
		}
		return verdict{class: Dev, reason: "sets " + name + ", which changes what the command runs"}
	}
	return safe()
}

type varKind int

const (
	varHarmless varKind = iota
	varTool             // changes what a tool runs (GIT_PAGER, RIPGREP_CONFIG_PATH, GOFLAGS...)
	varShell            // changes what any program is (PATH, LD_PRELOAD...)
)

func sensitiveVar(name, value string) varKind {
	switch name {
	case "PATH", "HOME", "IFS", "ENV", "BASH_ENV", "SHELLOPTS", "BASHOPTS", "PS4", "PROMPT_COMMAND",
		"XDG_CONFIG_HOME", "CDPATH", "GLOBIGNORE", "BASH_XTRACEFD", "GCONV_PATH", "HOSTALIASES":
		return varShell
	case "GIT_PAGER", "PAGER":
		if value == "" || value == "cat" {
			return varHarmless
		}
		return varTool
	case "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_AUTHOR_DATE", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL",
		"GIT_COMMITTER_DATE", "GIT_TERMINAL_PROMPT":
		return varHarmless
	case "MANPAGER", "EDITOR", "VISUAL", "GIT_EDITOR", "SHELL", "LESSOPEN", "LESSCLOSE", "RIPGREP_CONFIG_PATH",
		"TAR_OPTIONS", "GREP_OPTIONS", "NODE_OPTIONS", "PYTHONSTARTUP", "PYTHONPATH", "PYTHONHOME", "PERL5OPT",
		"PERL5LIB", "PERLLIB", "RUBYOPT", "RUBYLIB", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "GOFLAGS", "GOENV",
		"GOTOOLCHAIN", "CC", "CXX", "RUSTC", "RUSTC_WRAPPER", "RUSTFLAGS", "AWKPATH", "BROWSER", "SSH_ASKPASS",
		"SUDO_ASKPASS", "NPM_CONFIG_SCRIPT_SHELL", "MAKEFLAGS":
		return varTool
	}
	for _, p := range []string{"LD_", "DYLD_", "BASH_FUNC_"} {
		if strings.HasPrefix(name, p) {
			return varShell
		}
	}
	for _, p := range []string{"GIT_", "CARGO_", "NPM_CONFIG_", "npm_config_"} {
		if strings.HasPrefix(name, p) {
			return varTool
		}
	}
	return varHarmless
}

// pipeline blocks a download piped into a shell or interpreter.
func (a *analyzer) pipeline(p *syntax.BinaryCmd, sc *scope) {
	var stages []*syntax.Stmt
	var flatten func(s *syntax.Stmt)
	flatten = func(s *syntax.Stmt) {
		if b, ok := s.Cmd.(*syntax.BinaryCmd); ok && (b.Op == syntax.Pipe || b.Op == syntax.PipeAll) && len(s.Redirs) == 0 {
			flatten(b.X)
			flatten(b.Y)
			return
		}
		stages = append(stages, s)
	}
	flatten(p.X)
	flatten(p.Y)
	downloaded := false
	for _, st := range stages {
		var cmds []Command
		syntax.Walk(st, func(n syntax.Node) bool {
			if c, ok := n.(*syntax.CallExpr); ok {
				if r, ok := sc.calls[c]; ok {
					cmds = append(cmds, a.res.Commands[r[0]:r[1]]...)
				}
			}
			return true
		})
		for _, c := range cmds {
			if downloaded && c.readsProgram {
				a.block(FamilyDownloadRun, "running downloaded code: a download is piped into "+c.Name(), show(p))
				return
			}
		}
		for _, c := range cmds {
			downloaded = downloaded || downloader(c.Name())
		}
	}
}

// containsDownload reports whether a word runs a downloader in a command
// or process substitution.
func containsDownload(w *syntax.Word) bool {
	if w == nil {
		return false
	}
	found := false
	syntax.Walk(w, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.CallExpr); ok {
			for _, x := range words(c.Args) {
				found = found || downloader(commandName(x))
			}
		}
		return !found
	})
	return found
}

func downloader(name string) bool {
	switch name {
	case "curl", "wget", "fetch", "aria2c", "http", "https", "xh", "lwp-request", "GET":
		return true
	}
	return false
}

// forkBomb reports whether a function's body starts copies of itself
// more than once, through a pipe or in the background.
func forkBomb(name string, body *syntax.Stmt) bool {
	if body == nil {
		return false
	}
	calls, spawns := 0, false
	syntax.Walk(body, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CallExpr:
			if len(n.Args) > 0 && literal(n.Args[0]).text == name {
				calls++
			}
		case *syntax.Stmt:
			if n.Background && callsFunc(n, name) {
				spawns = true
			}
		case *syntax.BinaryCmd:
			if (n.Op == syntax.Pipe || n.Op == syntax.PipeAll) && (callsFunc(n.X, name) || callsFunc(n.Y, name)) {
				spawns = true
			}
		}
		return true
	})
	return calls >= 2 && spawns
}

func callsFunc(n syntax.Node, name string) bool {
	found := false
	syntax.Walk(n, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.CallExpr); ok && len(c.Args) > 0 && literal(c.Args[0]).text == name {
			found = true
		}
		return !found
	})
	return found
}

// fallback applies the blocklist to a line that does not parse, on a
// rough split of its text, so that what bash might still run is refused.
func (a *analyzer) fallback(src string, depth int) {
	clean := strings.NewReplacer(`\`, "", `'`, "", `"`, "").Replace(src)
	// A redirection onto a disk device: > /dev/sda, >>//dev/sda, &>...
	for rest := clean; ; {
		i := strings.IndexByte(rest, '>')
		if i < 0 {
			break
		}
		rest = strings.TrimLeft(rest[i+1:], ">|&")
		if f := strings.FieldsFunc(rest, bashBlank); len(f) > 0 {
			target, _, _ := strings.Cut(f[0], ";")
			if diskDevice(target) {
				a.block(FamilyDeviceWrite, "writing to the disk device "+target, src)
			}
		}
	}
	segments := strings.FieldsFunc(clean, func(r rune) bool { return strings.ContainsRune(";&|(){}`\n<>$", r) })
	start, downloaded := len(a.res.Commands), false
	for _, seg := range segments {
		f := strings.FieldsFunc(seg, bashBlank)
		if len(f) == 0 {
			continue
		}
		ws := make([]word, len(f))
		for i, s := range f {
			ws[i] = lit(s)
		}
		save := len(a.res.Commands)
		a.res.Commands = append(a.res.Commands, Command{Argv: f, Path: f[0], Depth: depth, Class: Dangerous})
		// Any word may start a command once the quoting is unknown.
		for i := range ws {
			name := commandName(ws[i])
			a.blocklist(name, ws[i+1:], save)
			a.res.rough = append(a.res.rough, strings.Join(append([]string{name}, f[i+1:]...), " "))
			if hasGlob(f[i]) {
				for _, n := range globCommands(f[i]) {
					a.blocklist(n, ws[i+1:], save)
					a.res.rough = append(a.res.rough, strings.Join(append([]string{n}, f[i+1:]...), " "))
				}
			}
			if downloaded && (shellName(name) || interpreterName(name)) {
				a.block(FamilyDownloadRun, "running downloaded code: a download is piped into "+name, src)
			}
		}
		for _, w := range ws {
			downloaded = downloaded || downloader(commandName(w))
		}
	}
	a.res.Commands = a.res.Commands[:start]
}

// bashBlank reports the characters bash separates words with: space and
// tab (and newline, which ends a command); not \v, \f or \r.
func bashBlank(r rune) bool { return r == ' ' || r == '\t' || r == '\n' }
