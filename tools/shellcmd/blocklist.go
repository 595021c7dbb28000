package shellcmd

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// blocklist checks one normalised command against the families refused in
// every mode (layer 1). idx is the command's place in Commands.
func (a *analyzer) blocklist(name string, args []word, idx int) {
	cmd := func() string { return a.res.Commands[idx].String() }
	switch name {
	case "sudo", "su", "doas", "pkexec", "runuser", "run0", "ksu", "calife":
		a.block(FamilyPrivilege, name+": privilege escalation", cmd())
	case "rm":
		if t, ok := removesProtected(args); ok {
			a.block(FamilyRecursiveRemoval, "recursive removal of "+t, cmd())
		}
	case "chmod":
		for _, w := range args {
			if worldWritable(w.text) {
				a.block(FamilyWorldWritable, "chmod "+w.text+": world-writable permissions", cmd())
				return
			}
		}
	case "dd":
		for _, w := range args {
			if dev, ok := strings.CutPrefix(w.text, "of="); ok && strings.HasPrefix(cleanPath(dev), "/dev/") && !harmlessSink(dev) {
				a.block(FamilyDeviceWrite, "dd onto the device "+dev, cmd())
			}
		}
	case "tee", "cp", "mv", "shred", "install", "truncate":
		for _, w := range args {
			if diskDevice(w.text) || name == "shred" && strings.HasPrefix(cleanPath(w.text), "/dev/") {
				a.block(FamilyDeviceWrite, name+" onto the disk device "+w.text, cmd())
			}
		}
	case "mke2fs", "mkswap", "wipefs", "mkdosfs", "mkntfs", "mkexfatfs", "blkdiscard", "mkfs":
		a.block(FamilyFormat, name+": formats a disk", cmd())
	case "fdisk", "sfdisk", "parted", "gdisk", "sgdisk", "cfdisk":
		listing := false
		device := false
		for _, w := range args {
			listing = listing || w.text == "-l" || w.text == "--list"
			device = device || strings.HasPrefix(cleanPath(w.text), "/dev/")
		}
		if device && !listing {
			a.block(FamilyFormat, name+": partitions a disk", cmd())
		}
	case "kill":
		if killsAll(args) {
			a.block(FamilyKillAll, "kill -1: kills every process", cmd())
		}
	case "pkill":
		if killSignal(args) && fullMatch(args) {
			a.block(FamilyKillAll, "pkill -9 -f: kills processes by command line", cmd())
		}
	case "killall":
		if killSignal(args) {
			a.block(FamilyKillAll, "killall -9: kills processes by name", cmd())
		}
	case "killall5":
		a.block(FamilyKillAll, "killall5: kills every process", cmd())
	case "shutdown", "reboot", "halt", "poweroff":
		a.block(FamilyPower, name+": stops the machine", cmd())
	case "init", "telinit":
		if len(args) > 0 && (args[0].text == "0" || args[0].text == "6") {
			a.block(FamilyPower, name+" "+args[0].text+": stops the machine", cmd())
		}
	case "systemctl":
		for _, w := range args {
			switch w.text {
			case "poweroff", "reboot", "halt", "kexec", "soft-reboot":
				a.block(FamilyPower, "systemctl "+w.text+": stops the machine", cmd())
			}
		}
	}
	if strings.HasPrefix(name, "mkfs.") {
		a.block(FamilyFormat, name+": formats a disk", cmd())
	}
}

// removesProtected reports the first protected target of a recursive rm.
func removesProtected(args []word) (string, bool) {
	recursive, operands := false, false
	var targets []string
	for _, w := range args {
		t := w.text
		switch {
		case operands:
			targets = append(targets, t)
		case t == "--":
			operands = true
		case strings.HasPrefix(t, "--"):
			recursive = recursive || longPrefix(t, "--recursive", 3)
		case strings.HasPrefix(t, "-") && len(t) > 1:
			recursive = recursive || strings.ContainsAny(t, "rR")
		default:
			targets = append(targets, t)
		}
	}
	if !recursive {
		return "", false
	}
	for _, t := range targets {
		if protectedTarget(t) {
			return t, true
		}
	}
	return "", false
}

// protectedTarget reports whether removing p recursively would remove /,
// the home directory, everything in either, or a top-level system
// directory.
func protectedTarget(p string) bool {
	for _, home := range []string{"~", "$HOME"} {
		if p == home {
			return true
		}
		if rest, ok := strings.CutPrefix(p, home+"/"); ok {
			return rootish("/" + rest)
		}
	}
	if strings.HasPrefix(p, "~") { // ~user
		i := strings.IndexByte(p, '/')
		return i < 0 || rootish(p[i:])
	}
	if !strings.HasPrefix(p, "/") {
		return false
	}
	if rootish(p) {
		return true
	}
	target := path.Clean(stripGlobs(p))
	for _, dir := range systemDirs() {
		if target == dir {
			return true
		}
		// A glob is what the shell expands it to: /[e]tc and /e* are /etc.
		if ok, _ := path.Match(target, dir); ok {
			return true
		}
	}
	return false
}

// systemDirs are the directories a recursive removal may never target.
func systemDirs() []string {
	return []string{"/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib32", "/lib64", "/libx32", "/opt", "/proc",
		"/root", "/run", "/sbin", "/srv", "/sys", "/usr", "/var", "/snap", "/mnt", "/media", "/Applications", "/Library",
		"/System", "/Users", "/private", "/usr/bin", "/usr/sbin", "/usr/lib", "/usr/local", "/usr/share", "/var/lib"}
}

// cleanPath normalises an absolute path as the kernel resolves it
// (//dev/sda and /dev/../dev/sda are /dev/sda); other words are returned
// unchanged.
func cleanPath(p string) string {
	if !strings.HasPrefix(p, "/") {
		return p
	}
	return path.Clean(p)
}

// rootish reports whether an absolute path names / or everything in it.
func rootish(p string) bool {
	p = stripGlobs(p)
	return p == "" || path.Clean(p) == "/"
}

// stripGlobs removes trailing /, /* and /.* from a path.
func stripGlobs(p string) string {
	for {
		q := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(p, "/"), "/*"), "/.*")
		if q == p {
			return p
		}
		p = q
	}
}

// worldWritable reports a chmod mode giving everyone every permission:
// 777 (with any special bits), a+rwx, ugo+rwx, +rwx and the like.
func worldWritable(mode string) bool {
	if len(mode) >= 3 && len(mode) <= 4 && strings.Trim(mode, "01234567") == "" {
		return strings.HasSuffix(mode, "777")
	}
	granted := map[rune]string{}
	for _, clause := range strings.Split(mode, ",") {
		who := strings.TrimLeft(clause, "ugoa")
		users := clause[:len(clause)-len(who)]
		if users == "" || strings.Contains(users, "a") {
			users = "ugo"
		}
		if who == "" || who[0] != '+' && who[0] != '=' {
			continue
		}
		for _, u := range users {
			granted[u] += who[1:]
		}
	}
	for _, u := range "ugo" {
		if !strings.Contains(granted[u], "r") || !strings.Contains(granted[u], "w") || !strings.Contains(granted[u], "x") {
			return false
		}
	}
	return true
}

// diskDevice reports a block device path.
func diskDevice(p string) bool {
	dev, ok := strings.CutPrefix(path.Clean(p), "/dev/")
	if !ok {
		return false
	}
	for _, prefix := range []string{"sd", "hd", "vd", "xvd", "nvme", "mmcblk", "disk", "mapper/", "md", "dm-", "loop", "sr", "nbd"} {
		if strings.HasPrefix(dev, prefix) {
			return true
		}
	}
	return false
}

// killsAll reports kill aimed at pid -1, every process.
func killsAll(args []word) bool {
	i := 0
	if len(args) > 0 {
		switch t := args[0].text; {
		case t == "-l" || t == "-L" || strings.HasPrefix(t, "--list") || t == "--table":
			return false
		case t == "-s" || t == "-n" || t == "--signal":
			i = 2
		case t == "--":
		case strings.HasPrefix(t, "-") && len(t) > 1:
			i = 1
		}
	}
	for ; i < len(args); i++ {
		if args[i].text == "-1" {
			return true
		}
	}
	return false
}

// killSignal reports a SIGKILL among pkill's or killall's options.
func killSignal(args []word) bool {
	for i, w := range args {
		t := w.text
		switch {
		case t == "-s" || t == "--signal":
			if i+1 < len(args) && isKill(args[i+1].text) {
				return true
			}
		case strings.HasPrefix(t, "--signal="):
			if isKill(strings.TrimPrefix(t, "--signal=")) {
				return true
			}
		case strings.HasPrefix(t, "-") && isKill(t[1:]):
			return true
		}
	}
	return false
}

func isKill(s string) bool {
	s = strings.TrimPrefix(strings.ToUpper(s), "SIG")
	return s == "9" || s == "KILL"
}

// fullMatch reports pkill -f (match the whole command line).
func fullMatch(args []word) bool {
	for _, w := range args {
		t := w.text
		if t == "--full" || len(t) > 1 && t[0] == '-' && t[1] != '-' && !digits(t[1:]) && strings.ContainsRune(t, 'f') && !isKill(t[1:]) {
			return true
		}
	}
	return false
}

// endlessSpawn reports a loop that never ends on its own and starts a
// background job each time round (while :; do sh & done, for ((;;)) ...):
// a fork bomb without a function.
func endlessSpawn(n syntax.Node) bool {
	var body []*syntax.Stmt
	switch n := n.(type) {
	case *syntax.WhileClause:
		if !alwaysTrue(n.Cond, n.Until) {
			return false
		}
		body = n.Do
	case *syntax.ForClause:
		c, ok := n.Loop.(*syntax.CStyleLoop)
		if !ok || c.Cond != nil {
			return false
		}
		body = n.Do
	default:
		return false
	}
	spawns := false
	for _, st := range body {
		syntax.Walk(st, func(n syntax.Node) bool {
			if s, ok := n.(*syntax.Stmt); ok && s.Background {
				spawns = true
			}
			return !spawns
		})
	}
	return spawns
}

// alwaysTrue reports a loop condition that never changes: while :,
// while true, while ((1)), until false.
func alwaysTrue(cond []*syntax.Stmt, until bool) bool {
	if len(cond) != 1 || cond[0].Negated {
		return false
	}
	switch c := cond[0].Cmd.(type) {
	case *syntax.CallExpr:
		if len(c.Args) == 0 {
			return false
		}
		name := literal(c.Args[0]).text
		if until {
			return name == "false" && len(c.Args) == 1
		}
		return (name == ":" || name == "true") && (len(c.Args) == 1 || name == ":")
	case *syntax.ArithmCmd:
		w, ok := c.X.(*syntax.Word)
		if !ok {
			return false
		}
		v := literal(w)
		return v.static && digits(v.text) && strings.Trim(v.text, "0") != "" != until
	}
	return false
}

// forksInLoop reports a program text (perl -e, python -c, ruby -e, node
// -e ...) that calls fork inside a loop: fork while 1, while True:
// os.fork(), loop { fork }.
func forksInLoop(code string) bool {
	fork, loop := false, false
	for _, tok := range strings.FieldsFunc(code, func(r rune) bool {
		return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) {
		switch tok {
		case "fork", "forkpty":
			fork = true
		case "while", "until", "for", "foreach", "loop", "repeat", "redo", "goto", "setInterval":
			loop = true
		}
	}
	return fork && loop
}
