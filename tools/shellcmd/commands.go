package shellcmd

import (
	"strings"
)

// classify returns the verdict of one command: name is its normalised
// name, ws its words (ws[0] the name as written).
func (a *analyzer) classify(name string, ws []word, depth, idx int) verdict {
	w0, args := ws[0], ws[1:]
	if w0.pattern != "" {
		return dangerous("the command name %s is a pattern the shell expands at run time", w0.text)
	}
	if !w0.static {
		return dangerous("the command name %s is only known at run time", w0.text)
	}
	if strings.Contains(w0.text, "/") && !trustedDir(w0.text) {
		return dangerous("runs the program %s", w0.text)
	}
	if name == "" {
		return dangerous("runs a program with an empty name")
	}
	if runsProgram(name) {
		for _, w := range args {
			if containsDownload(w.node) {
				a.block(FamilyDownloadRun, "running downloaded code: "+name+" runs a download", a.res.Commands[idx].String())
			}
		}
	}
	if v, ok := a.wrapper(name, args, depth, idx); ok {
		return v
	}
	v := a.command(name, args, depth, idx)
	if v.class == Safe && !anyArgsSafe(name) {
		for _, w := range args {
			if w.static && w.text == "--" {
				break
			}
			if !w.static {
				return dangerous("%s has an argument only known at run time (%s), which could be an option", name, w.text)
			}
		}
	}
	return v
}

// runsProgram reports whether a command runs code given as an argument.
func runsProgram(name string) bool {
	return shellName(name) || interpreterName(name) || name == "eval" || name == "source" || name == "." || name == "trap"
}

func shellName(name string) bool {
	switch name {
	case "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "posh", "rbash", "fish", "csh", "tcsh":
		return true
	}
	return false
}

func interpreterName(name string) bool {
	switch name {
	case "perl", "ruby", "irb", "node", "nodejs", "php", "lua", "luajit", "tclsh", "wish", "pwsh", "deno", "bun", "Rscript", "osascript":
		return true
	}
	return strings.HasPrefix(name, "python") || strings.HasPrefix(name, "perl5")
}

// scriptOf judges the command line a wrapper (what: "env -S", "watch")
// hands to a shell: line followed by the words of rest, each of which must
// be known before it runs.
func (a *analyzer) scriptOf(what, line string, rest []word, depth, idx int) verdict {
	for _, w := range rest {
		if !w.static {
			return dangerous("%s runs a command only known at run time", what)
		}
		line += " " + w.text
	}
	a.res.Commands[idx].Wrapper = true
	return a.script(line, depth+1)
}

// wrapper handles commands that run another command. ok is false for
// anything else.
func (a *analyzer) wrapper(name string, args []word, depth, idx int) (verdict, bool) {
	own, env := safe(), safe()
	var payload []word
	var opts []opt
	var rest []word
	var ok bool
	switch name {
	case "env":
		opts, rest, ok = optSpec{short: "uCSP", long: []string{"unset", "chdir", "split-string"}}.parse(args)
		if o, found := has(opts, "-S", "--split-string"); found && ok {
			return a.scriptOf("env -S", o.value, rest, depth, idx), true
		}
		for len(rest) > 0 && rest[0].static {
			n, v, isAssign := strings.Cut(rest[0].text, "=")
			if !isAssign || !validName(n) {
				break
			}
			switch sensitiveVar(n, v) {
			case varShell:
				env = env.worst(dangerous("sets %s, which changes what programs run", n))
			case varTool:
				env = env.worst(verdict{class: Dev, reason: "sets " + n + ", which changes what the command runs"})
			}
			rest = rest[1:]
		}
		payload = rest
		if len(payload) == 0 && env.class == Dev {
			own = dangerous("%s", env.reason)
		}
	case "nice":
		opts, payload, ok = optSpec{short: "n", long: []string{"adjustment"}, numeric: true}.parse(args)
	case "nohup", "builtin", "unbuffer", "busybox":
		opts, payload, ok = optSpec{}.parse(args)
	case "setsid":
		opts, payload, ok = optSpec{}.parse(args)
	case "stdbuf":
		opts, payload, ok = optSpec{short: "ioe", long: []string{"input", "output", "error"}}.parse(args)
	case "timeout":
		opts, rest, ok = optSpec{short: "sk", long: []string{"signal", "kill-after"}}.parse(args)
		if len(rest) > 0 {
			payload = rest[1:] // after the duration
		}
	case "xargs":
		opts, payload, ok = optSpec{short: "aEdILnPs", optShort: "eil",
			long: []string{"arg-file", "delimiter", "max-args", "max-procs", "max-chars", "process-slot-var"}}.parse(args)
		if len(payload) == 0 {
			payload = []word{lit("echo")}
		}
		// xargs appends words read from its input: they may be options.
		payload = append(payload, word{text: "{xargs input}", added: true})
	case "sudo", "doas", "pkexec", "run0":
		opts, payload, ok = optSpec{short: "ugpCDhrRtTU", long: []string{"user", "group", "prompt", "chdir", "host", "role", "type", "close-from", "command-timeout", "other-user", "chroot"}}.parse(args)
	case "command":
		opts, payload, ok = optSpec{}.parse(args)
		if _, lookup := has(opts, "-v", "-V"); lookup {
			return safe(), true
		}
	case "exec":
		opts, payload, ok = optSpec{short: "a"}.parse(args)
	case "time":
		opts, payload, ok = optSpec{short: "fo", long: []string{"format", "output"}}.parse(args)
		if _, out := has(opts, "-o", "--output"); out {
			own = dangerous("time -o writes its report to a file")
		}
	case "ionice":
		opts, payload, ok = optSpec{short: "cnpPu", long: []string{"class", "classdata", "pid", "pgid", "uid"}}.parse(args)
		if _, other := has(opts, "-p", "-P", "-u", "--pid", "--pgid", "--uid"); other {
			own = dangerous("ionice changes the priority of other processes")
		}
	case "chrt", "taskset":
		opts, rest, ok = optSpec{short: "TPD", long: []string{"sched-runtime", "sched-period", "sched-deadline"}}.parse(args)
		if _, other := has(opts, "-p", "--pid"); other {
			return dangerous("%s changes other processes", name), true
		}
		if _, max := has(opts, "-m", "--max"); max && name == "chrt" {
			return safe(), true
		}
		if len(rest) > 0 {
			payload = rest[1:] // after the priority or mask
		}
	case "watch":
		opts, rest, ok = optSpec{short: "ngq", optShort: "d", long: []string{"interval", "equexit"}}.parse(args)
		if _, direct := has(opts, "-x", "--exec"); direct || !ok {
			payload = rest
			break
		}
		return a.scriptOf("watch", "", rest, depth, idx), true
	case "flock":
		opts, rest, ok = optSpec{short: "wEc", long: []string{"timeout", "conflict-exit-code", "command"}}.parse(args)
		own = dangerous("flock creates its lock file")
		if o, found := has(opts, "-c", "--command"); found {
			a.res.Commands[idx].Wrapper = true
			return own.worst(a.script(o.value, depth+1)), true
		}
		if len(rest) > 0 {
			payload = rest[1:]
		}
	default:
		return verdict{}, false
	}
	if !ok {
		own = own.worst(dangerous("%s has options only known at run time", name))
	}
	if len(payload) == 0 {
		return own.worst(env), true
	}
	a.res.Commands[idx].Wrapper = true
	return own.worst(a.run(payload, depth+1, env)), true
}

// validName reports whether s is a shell variable name.
func validName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if c != '_' && (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// command classifies a command that is not a wrapper.
func (a *analyzer) command(name string, args []word, depth, idx int) verdict {
	switch {
	case shellName(name):
		return a.shell(name, args, depth, idx)
	case interpreterName(name):
		return a.interpreter(name, args, idx)
	}
	switch name {
	case "eval":
		line := ""
		for _, w := range args {
			if !w.static {
				return dangerous("eval runs a command only known at run time")
			}
			line += " " + w.text
		}
		a.res.Commands[idx].Wrapper = true
		return a.script(line, depth+1)
	case "source", ".":
		if len(args) == 0 || args[0].text == "-" || args[0].text == "/dev/stdin" || args[0].text == "/dev/fd/0" {
			a.res.Commands[idx].readsProgram = true
		}
		return dangerous("%s runs the commands of a file", name)
	case "trap":
		if len(args) == 0 || args[0].text == "-p" || args[0].text == "-l" || args[0].text == "-" || args[0].text == "" {
			return safe()
		}
		if !args[0].static {
			return dangerous("trap sets a handler only known at run time")
		}
		return a.script(args[0].text, depth+1)
	case "find":
		return a.find(args, depth, idx)
	case "git":
		return gitVerdict(args)
	case "sed":
		return sedVerdict(args)
	case "awk", "gawk", "mawk", "nawk":
		return awkVerdict(args)
	case "tar":
		return tarVerdict(args)
	case "rg":
		opts, _, _ := optSpec{permute: true}.parse(args)
		for _, o := range opts {
			if o.name == "--pre" || o.name == "--hostname-bin" {
				return dangerous("rg %s runs a program", o.name)
			}
		}
		return safe()
	case "sort":
		opts, _, _ := optSpec{short: "kStTo", long: []string{"key", "buffer-size", "field-separator", "temporary-directory", "output", "compress-program", "files0-from", "parallel", "random-source", "batch-size"}, permute: true}.parse(args)
		if _, out := has(opts, "-o", "--output"); out {
			return dangerous("sort -o writes to a file")
		}
		if _, prog := has(opts, "--compress-program"); prog {
			return dangerous("sort --compress-program runs a program")
		}
		return safe()
	case "tee":
		_, files, _ := optSpec{permute: true, optShort: "p"}.parse(args)
		for _, f := range files {
			if !harmlessSink(f.text) {
				return dangerous("tee writes to %s", f.text)
			}
		}
		return safe()
	case "tree":
		opts, _, _ := optSpec{short: "LPIHTo", long: []string{"charset", "filelimit", "timefmt", "sort", "fromfile"}, permute: true}.parse(args)
		if _, out := has(opts, "-o", "-R"); out {
			return dangerous("tree -o writes to a file")
		}
		return safe()
	case "file":
		opts, _, _ := optSpec{short: "eFfmP", long: []string{"exclude", "separator", "files-from", "magic-file", "parameter"}, permute: true}.parse(args)
		if _, compile := has(opts, "-C", "--compile"); compile {
			return dangerous("file -C writes a compiled magic file")
		}
		return safe()
	case "date":
		opts, _, _ := optSpec{short: "dfrs", optShort: "I", long: []string{"date", "file", "reference", "set"}, permute: true}.parse(args)
		if _, set := has(opts, "-s", "--set"); set {
			return dangerous("date -s sets the clock")
		}
		return safe()
	case "uniq":
		_, operands, _ := optSpec{short: "fsw", long: []string{"skip-fields", "skip-chars", "check-chars"}, permute: true}.parse(args)
		if len(operands) > 1 {
			return dangerous("uniq writes its second operand")
		}
		return safe()
	case "hostname":
		if len(args) > 0 && !strings.HasPrefix(args[0].text, "-") {
			return dangerous("hostname with a name sets it")
		}
		return safe()
	case "go":
		return goVerdict(args)
	case "npm", "pnpm", "yarn", "bun":
		return jsVerdict(name, args)
	case "cargo":
		return subVerdict(name, args, []string{"check"}, []string{"build", "test", "clippy", "fmt", "run"})
	case "docker":
		return subVerdict(name, args, nil, []string{"ps", "images"})
	case "kubectl":
		return subVerdict(name, args, nil, []string{"get", "describe"})
	}
	switch {
	case anyArgsSafe(name), name == "env", name == "printenv":
		return safe()
	case devCommand(name):
		return dev()
	}
	return dangerous("%s is not known to be read-only or a development tool", name)
}

// anyArgsSafe reports whether a command is read-only whatever its
// arguments: no option makes it write a file or run a program.
func anyArgsSafe(name string) bool {
	switch name {
	case "echo", "printf", "true", "false", ":", "pwd", "basename", "dirname", "cat", "head", "tail", "wc",
		"grep", "egrep", "fgrep", "ls", "stat", "du", "df", "realpath", "readlink", "which", "type", "test", "[",
		"sleep", "cd", "pushd", "popd", "dirs", "seq", "cut", "tr", "nl", "tac", "rev", "cmp", "comm", "diff",
		"id", "whoami", "uname", "md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum",
		"b2sum", "cksum", "od", "wait", "exit", "return", "shift", "set", "read", "break", "continue", "jq",
		"column", "fold", "paste", "nproc", "tty", "locale", "arch", "strings":
		return true
	}
	return false
}

// devCommand reports a known development tool (spec: layer 2, dev).
func devCommand(name string) bool {
	switch name {
	case "pytest", "mypy", "ruff", "black", "eslint", "prettier", "make", "mvn", "gradle", "tsc", "jest",
		"vitest", "gofmt", "golangci-lint", "dotnet", "node":
		return true
	}
	return false
}

// subVerdict classifies a tool by its first argument.
func subVerdict(name string, args []word, safeSubs, devSubs []string) verdict {
	if len(args) == 0 || !args[0].static {
		return dangerous("%s without a known subcommand", name)
	}
	sub := args[0].text
	for _, s := range safeSubs {
		if sub == s {
			return safe()
		}
	}
	for _, s := range devSubs {
		if sub == s {
			return dev()
		}
	}
	return dangerous("%s %s is not known to be read-only or a development tool", name, sub)
}

func goVerdict(args []word) verdict {
	opts, _, _ := optSpec{permute: true}.parse(args)
	for _, o := range opts {
		switch o.name {
		case "-exec", "-toolexec", "--exec", "--toolexec":
			return dangerous("go %s runs a program of its choosing", o.name)
		}
	}
	// -exec and -toolexec are single-dash long flags: look at the words too.
	for _, w := range args {
		if n, _, _ := strings.Cut(w.text, "="); n == "-exec" || n == "-toolexec" || n == "--exec" || n == "--toolexec" {
			return dangerous("go %s runs a program of its choosing", n)
		}
	}
	if len(args) > 0 && args[0].text == "env" {
		for _, w := range args[1:] {
			if w.text == "-w" || w.text == "-u" {
				return dangerous("go env %s changes the Go configuration", w.text)
			}
		}
	}
	return subVerdict("go", args, []string{"version", "env", "list", "doc", "help"}, []string{"build", "test", "vet", "run", "mod", "generate", "fmt"})
}

func jsVerdict(name string, args []word) verdict {
	for _, w := range args {
		if w.text == "-g" || w.text == "--global" || w.text == "--location=global" {
			return dangerous("%s %s installs system-wide", name, w.text)
		}
	}
	for i, w := range args {
		if w.text == "--location" && i+1 < len(args) && args[i+1].text == "global" {
			return dangerous("%s --location global installs system-wide", name)
		}
	}
	safeSubs := []string(nil)
	devSubs := []string{"run", "test", "install"}
	if name == "npm" {
		safeSubs = []string{"list", "ls", "view"}
		devSubs = append(devSubs, "ci", "i", "run-script")
	}
	return subVerdict(name, args, safeSubs, devSubs)
}

// shell classifies sh, bash and the like.
func (a *analyzer) shell(name string, args []word, depth, idx int) verdict {
	own := safe()
	cmdMode, stdinMode := false, false
	i := 0
options:
	for ; i < len(args); i++ {
		w := args[i]
		if !w.static {
			return dangerous("%s has options only known at run time", name)
		}
		t := w.text
		switch {
		case t == "-":
			stdinMode = true
			i++
			break options
		case t == "--":
			i++
			break options
		case len(t) < 2 || t[0] != '-' && t[0] != '+':
			break options
		case strings.HasPrefix(t, "--"):
			if t == "--rcfile" || t == "--init-file" {
				i++
				own = dangerous("%s reads startup commands from a file", name)
			}
			continue
		}
		for _, c := range t[1:] {
			switch c {
			case 'c':
				cmdMode = true
			case 's':
				stdinMode = true
			case 'o', 'O':
				i++
			}
		}
	}
	var rest []word
	if i < len(args) {
		rest = args[i:]
	}
	if cmdMode {
		if len(rest) == 0 {
			return own
		}
		if !rest[0].static {
			return dangerous("%s -c runs a command only known at run time", name)
		}
		a.res.Commands[idx].Wrapper = true
		return own.worst(a.script(rest[0].text, depth+1))
	}
	if stdinMode || len(rest) == 0 {
		a.res.Commands[idx].readsProgram = true
		return dangerous("%s runs commands read from its input", name)
	}
	return dangerous("%s runs the script %s", name, rest[0].text)
}

// interpreter classifies python, node, perl and the like.
func (a *analyzer) interpreter(name string, args []word, idx int) verdict {
	operands := 0
	for _, w := range args {
		if forksInLoop(w.text) {
			a.block(FamilyForkBomb, "a fork bomb: "+name+"'s program forks in a loop", a.res.Commands[idx].String())
		}
	}
	for _, w := range args {
		switch {
		case w.text == "-" || w.text == "/dev/stdin":
			a.res.Commands[idx].readsProgram = true
			operands++
		case !strings.HasPrefix(w.text, "-"):
			operands++
		}
	}
	if operands == 0 {
		a.res.Commands[idx].readsProgram = true
	}
	python := strings.HasPrefix(name, "python")
	if python && len(args) == 1 && (args[0].text == "--version" || args[0].text == "-V") {
		return safe()
	}
	if python || devCommand(name) {
		return dev()
	}
	return dangerous("%s runs a program", name)
}

// find classifies find: -exec, -delete and -fprint make it dangerous.
func (a *analyzer) find(args []word, depth, idx int) verdict {
	v := safe()
	i := 0
	for i < len(args) && (args[i].text == "-H" || args[i].text == "-L" || args[i].text == "-P" || strings.HasPrefix(args[i].text, "-O")) {
		i++
	}
	if i < len(args) && args[i].text == "-D" {
		i += 2
	}
	var starts []string
	for ; i < len(args) && !findExpr(args[i].text); i++ {
		starts = append(starts, args[i].text)
	}
	for ; i < len(args); i++ {
		switch t := args[i].text; t {
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			for j < len(args) && args[j].text != ";" && args[j].text != "+" {
				j++
			}
			v = v.worst(dangerous("find %s runs other commands", t))
			v = v.worst(a.run(args[i+1:j], depth+1, safe()))
			i = j
		case "-delete":
			v = v.worst(dangerous("find -delete removes files"))
			for _, s := range starts {
				if protectedTarget(s) {
					a.block(FamilyRecursiveRemoval, "recursive removal of "+s, a.res.Commands[idx].String())
				}
			}
		case "-fprint", "-fprint0", "-fprintf", "-fls":
			v = v.worst(dangerous("find %s writes to a file", t))
		}
	}
	return v
}

func findExpr(t string) bool {
	return strings.HasPrefix(t, "-") || t == "(" || t == ")" || t == "!" || t == ","
}

// gitSplit removes git's global options, returning the subcommand and
// its arguments, and why a global option is risky ("" when none is).
func gitSplit(args []string) (rest []string, risky string) {
	for i := 0; i < len(args); i++ {
		t := args[i]
		switch {
		case t == "-C" || t == "--git-dir" || t == "--work-tree" || t == "--namespace" || t == "--super-prefix" || t == "--attr-source":
			i++
		case strings.HasPrefix(t, "--git-dir=") || strings.HasPrefix(t, "--work-tree=") || strings.HasPrefix(t, "--namespace=") ||
			strings.HasPrefix(t, "--super-prefix=") || strings.HasPrefix(t, "--attr-source=") || strings.HasPrefix(t, "--list-cmds="):
		case t == "-c" || t == "--config-env":
			risky = "git " + t + " sets configuration, which can run programs"
			i++
		case strings.HasPrefix(t, "-c") || strings.HasPrefix(t, "--config-env="):
			risky = "git " + t + " sets configuration, which can run programs"
		case t == "--exec-path" || strings.HasPrefix(t, "--exec-path="):
			risky = "git --exec-path changes which programs git runs"
		case t == "-p" || t == "--paginate" || t == "-P" || t == "--no-pager" || t == "--bare" || t == "--no-replace-objects" ||
			t == "--literal-pathspecs" || t == "--glob-pathspecs" || t == "--noglob-pathspecs" || t == "--icase-pathspecs" ||
			t == "--no-optional-locks" || t == "--no-lazy-fetch" || t == "--no-advice":
		default:
			return args[i:], risky
		}
	}
	return nil, risky
}

// gitSubcommand is git's arguments without its global options.
func gitSubcommand(args []string) []string {
	rest, _ := gitSplit(args)
	return rest
}

func gitVerdict(args []word) verdict {
	all := make([]string, len(args))
	for i, w := range args {
		all[i] = w.text
	}
	rest, risky := gitSplit(all)
	n := len(args) - len(rest)
	for _, w := range args[:n] {
		if !w.static {
			return dangerous("git has a global option only known at run time")
		}
	}
	if risky != "" {
		return dangerous("%s", risky)
	}
	if len(rest) == 0 {
		return safe()
	}
	if !args[n].static {
		return dangerous("the git subcommand %s is only known at run time", args[n].text)
	}
	sub, subArgs := rest[0], args[n+1:]
	for _, w := range subArgs {
		if w.text == "--" {
			break
		}
		if longPrefix(w.text, "--output", minAbbrev) {
			return dangerous("git %s writes to a file", w.text)
		}
		if longPrefix(w.text, "--ext-diff", 5) {
			return dangerous("git --ext-diff runs an external diff program")
		}
	}
	if why := gitPrintsObjects(sub, subArgs); why != "" {
		return dangerous("git %s %s, which the secret masks do not cover: it needs confirmation "+
			"(git status, git log without -p and git diff -- PATH do not)", sub, why)
	}
	switch sub {
	case "status", "log", "diff", "grep", "rev-parse", "ls-files", "version", "--version", "help", "--help":
		return safe()
	case "branch":
		return gitBranch(subArgs)
	case "config":
		return gitConfig(subArgs)
	case "add", "stash":
		return dev()
	case "fetch":
		for _, w := range subArgs {
			if longPrefix(w.text, "--upload-pack", 5) {
				return dangerous("git fetch --upload-pack runs a program")
			}
		}
		return dev()
	case "submodule":
		for _, w := range subArgs {
			if w.text == "foreach" {
				return dangerous("git submodule foreach runs commands")
			}
		}
		return dev()
	}
	return dangerous("git %s changes the repository or is not known to be read-only", sub)
}

// gitBranch allows listing branches only.
func gitBranch(args []word) verdict {
	list, names := false, 0
	for i := 0; i < len(args); i++ {
		t := args[i].text
		switch {
		case t == "-l" || t == "--list":
			list = true
		case t == "--contains" || t == "--no-contains" || t == "--merged" || t == "--no-merged" || t == "--points-at" || t == "--sort" || t == "--format":
			i++
		case strings.HasPrefix(t, "--contains=") || strings.HasPrefix(t, "--no-contains=") || strings.HasPrefix(t, "--merged=") ||
			strings.HasPrefix(t, "--no-merged=") || strings.HasPrefix(t, "--points-at=") || strings.HasPrefix(t, "--sort=") ||
			strings.HasPrefix(t, "--format=") || strings.HasPrefix(t, "--color") || strings.HasPrefix(t, "--column") || strings.HasPrefix(t, "--abbrev="):
		case t == "--all" || t == "--remotes" || t == "--verbose" || t == "--show-current" || t == "--no-color" || t == "--no-column" ||
			t == "--ignore-case" || t == "--no-abbrev" || t == "--omit-empty" || t == "--quiet":
		case len(t) > 1 && t[0] == '-' && t[1] != '-' && strings.Trim(t[1:], "arvliq") == "":
			list = list || strings.ContainsRune(t, 'l')
		case strings.HasPrefix(t, "-"):
			return dangerous("git branch %s changes branches", t)
		default:
			names++
		}
	}
	if names > 0 && !list {
		return dangerous("git branch with a name creates a branch")
	}
	return safe()
}

// gitConfig allows reading configuration only.
func gitConfig(args []word) verdict {
	if len(args) > 0 {
		switch args[0].text {
		case "get", "list":
			return safe()
		case "set", "unset", "rename-section", "remove-section", "edit":
			return dangerous("git config %s changes configuration", args[0].text)
		}
	}
	read, operands := false, 0
	for i := 0; i < len(args); i++ {
		t := args[i].text
		switch {
		case t == "--get" || t == "--get-all" || t == "--get-regexp" || t == "--get-urlmatch" || t == "--list" || t == "-l" ||
			t == "--get-color" || t == "--get-colorbool":
			read = true
		case t == "--show-origin" || t == "--show-scope" || t == "--name-only" || t == "-z" || t == "--null" || t == "--global" ||
			t == "--system" || t == "--local" || t == "--worktree" || t == "--includes" || t == "--no-includes" || t == "--bool" ||
			t == "--int" || t == "--bool-or-int" || t == "--path" || t == "--expiry-date" ||
			strings.HasPrefix(t, "--type=") || strings.HasPrefix(t, "--default=") || strings.HasPrefix(t, "--file=") || strings.HasPrefix(t, "--blob="):
		case t == "-f" || t == "--file" || t == "--blob" || t == "--type" || t == "--default":
			i++
		case strings.HasPrefix(t, "-"):
			return dangerous("git config %s changes configuration", t)
		default:
			operands++
		}
	}
	if read || operands <= 1 {
		return safe()
	}
	return dangerous("git config with a value changes configuration")
}

// gitPrintsObjects says how a git command can print the contents of
// files from the object store (any commit, the index, a blob by name)
// rather than the worktree, where secret files are masked; "" when it
// cannot. Reading history that way is not "read-only safe" (issue 29,
// class 3): the command asks in confirm-sensitive mode, as writes do.
func gitPrintsObjects(sub string, args []word) string {
	switch sub {
	case "show", "cat-file", "archive", "format-patch", "bundle", "fast-export", "verify-pack", "unpack-objects",
		"difftool", "whatchanged", "blame", "annotate", "pack-objects", "get-tar-commit-id", "unpack-file", "merge-file",
		"cherry", "range-diff", "show-branch", "request-pull", "send-email":
		return "prints file contents from the repository's objects"
	case "log", "reflog":
		if o := gitPatchOption(args); o != "" {
			return "with " + o + " prints file contents from the repository's history"
		}
	case "diff":
		if o := gitPatchOption(args); o != "" && (o == "-S" || o == "-G" || strings.HasPrefix(o, "--pickaxe")) {
			return "with " + o + " searches file contents in the repository's objects"
		}
		for _, w := range args {
			if w.text == "--" {
				break
			}
			switch {
			case w.text == "--cached" || w.text == "--staged" || strings.HasPrefix(w.text, "--merge-base"):
				return "with " + w.text + " prints file contents from the index or a commit"
			case !strings.HasPrefix(w.text, "-"):
				return "with a revision or path before -- (" + w.text + ") can print file contents from a commit"
			}
		}
	case "grep":
		return gitGrepObjects(args)
	case "stash":
		if len(args) > 0 && args[0].text == "show" {
			return "show prints file contents from a stash"
		}
	case "notes":
		for _, w := range args {
			if w.text == "show" || w.text == "list" {
				return "prints notes from the repository's objects"
			}
		}
		return "changes notes"
	case "config":
		for _, w := range args {
			if w.text == "--blob" || strings.HasPrefix(w.text, "--blob=") {
				return "--blob reads a blob from the repository's objects"
			}
		}
	}
	return ""
}

// gitPatchOption returns the first option of git log, show or diff that
// makes it print patches (file contents) or search file contents: -p,
// --patch, -U, -L, -S, -G, --cc, --word-diff and the like; "" when none.
func gitPatchOption(args []word) string {
	for _, w := range args {
		t := w.text
		if t == "--" {
			break
		}
		if strings.HasPrefix(t, "--") {
			name, _, _ := strings.Cut(t, "=")
			switch name {
			case "--patch", "--unified", "--cc", "--dd", "--remerge-diff", "--diff-merges", "--patch-with-stat",
				"--patch-with-raw", "--binary", "--function-context", "--word-diff", "--word-diff-regex",
				"--color-words", "--full-diff", "--textconv", "--find-object", "--pickaxe-all", "--pickaxe-regex",
				"--line-range", "--stat-with-patch":
				return name
			}
			continue
		}
		if len(t) < 2 || t[0] != '-' || digits(t[1:]) {
			continue
		}
		// A short option: clustered flags and attached values alike.
		switch t[1] {
		case 'p', 'u', 'U', 'L', 'S', 'G', 'W', 'c', 'm':
			return t[:2]
		}
	}
	return ""
}

// gitGrepObjects says how git grep searches the object store: --cached,
// or a tree-ish after the pattern; "" when it searches the worktree only.
func gitGrepObjects(args []word) string {
	patterns, operands := 0, 0
	for i := 0; i < len(args); i++ {
		t := args[i].text
		if t == "--" {
			break
		}
		switch {
		case t == "--cached" || t == "--recurse-submodules":
			return "with " + t + " searches file contents in the index or the repository's objects"
		case t == "--textconv":
			return "with --textconv runs the repository's text conversion programs"
		case t == "-O" || strings.HasPrefix(t, "--open-files-in-pager") || strings.HasPrefix(t, "-O"):
			return "with " + t + " runs a pager program"
		case t == "-e" || t == "-f" || t == "--and" || t == "--or" || t == "--not":
			if t == "-e" || t == "-f" {
				patterns++
				i++
			}
		case t == "-A" || t == "-B" || t == "-C" || t == "-m" || t == "--max-depth" || t == "--threads" ||
			t == "--max-count" || t == "--context" || t == "--after-context" || t == "--before-context":
			i++
		case strings.HasPrefix(t, "-") && len(t) > 1:
		default:
			operands++
		}
	}
	if patterns == 0 {
		operands-- // the first operand is the pattern
	}
	if operands > 0 {
		return "with a tree-ish or path before -- searches file contents in the repository's objects " +
			"(put paths after --: git grep PATTERN -- PATH)"
	}
	return ""
}
