package shellcmd

import "strings"

// sedVerdict allows sed scripts that only print: -i, -f and the w, W and
// e commands (and the s command's w and e flags) are not safe.
func sedVerdict(args []word) verdict {
	opts, operands, ok := optSpec{short: "elf", optShort: "i", long: []string{"expression", "file", "line-length"}, permute: true}.parse(args)
	if !ok {
		return dangerous("sed has arguments only known at run time")
	}
	var scripts []string
	for _, o := range opts {
		switch {
		case o.name == "-i" || longPrefix(o.name, "--in-place", minAbbrev):
			return dangerous("sed -i edits files in place")
		case o.name == "-f" || longPrefix(o.name, "--file", minAbbrev):
			return dangerous("sed -f reads its script from a file")
		case o.name == "-e" || longPrefix(o.name, "--expression", minAbbrev):
			scripts = append(scripts, o.value)
		case o.name == "-n" || o.name == "-E" || o.name == "-r" || o.name == "-s" || o.name == "-u" || o.name == "-z" || o.name == "-l",
			strings.HasPrefix(o.name, "--") && !strings.HasPrefix("--in-place", o.name) && !strings.HasPrefix("--file", o.name):
		default:
			return dangerous("sed %s is not known to be read-only", o.name)
		}
	}
	if len(scripts) == 0 && len(operands) > 0 {
		scripts = append(scripts, operands[0].text)
	}
	for _, s := range scripts {
		if !sedScriptReadOnly(s) {
			return dangerous("the sed script can write files or run commands")
		}
	}
	return safe()
}

// sedScriptReadOnly parses a sed script far enough to find the commands
// that write files (w, W, s///w) or run them (e, s///e); anything it does
// not understand counts as unsafe.
func sedScriptReadOnly(s string) bool {
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case strings.IndexByte(" \t\n;{}!,$~+", c) >= 0 || c >= '0' && c <= '9':
			i++
		case c == '#':
			i = toLineEnd(s, i)
		case c == '/':
			i = skipDelimited(s, i+1, '/')
			i = skipAddrFlags(s, i)
		case c == '\\':
			if i+1 >= len(s) {
				return false
			}
			i = skipDelimited(s, i+2, s[i+1])
			i = skipAddrFlags(s, i)
		case c == 's' || c == 'y':
			if i+1 >= len(s) || s[i+1] == '\n' || s[i+1] == '\\' {
				return false
			}
			d := s[i+1]
			i = skipDelimited(s, i+2, d)
			i = skipDelimited(s, i, d)
			for i < len(s) && strings.IndexByte(";\n}", s[i]) < 0 {
				if c == 's' && (s[i] == 'w' || s[i] == 'e' || s[i] == 'W') {
					return false
				}
				i++
			}
		case strings.IndexByte("aicrR", c) >= 0:
			i = toLineEnd(s, i)
		case strings.IndexByte("btT:qQlLv", c) >= 0:
			for i < len(s) && s[i] != ';' && s[i] != '\n' {
				i++
			}
		case strings.IndexByte("dDgGhHnNpPxz=F", c) >= 0:
			i++
		default: // w, W, e and anything unknown
			return false
		}
	}
	return true
}

// skipDelimited returns the index after the first unescaped d from i.
func skipDelimited(s string, i int, d byte) int {
	for i < len(s) {
		switch s[i] {
		case '\\':
			i += 2
			continue
		case d:
			return i + 1
		}
		i++
	}
	return len(s)
}

func skipAddrFlags(s string, i int) int {
	for i < len(s) && (s[i] == 'I' || s[i] == 'M') {
		i++
	}
	return i
}

// toLineEnd returns the index of the end of the line at i, following
// backslash-newline continuations.
func toLineEnd(s string, i int) int {
	for i < len(s) && s[i] != '\n' {
		if s[i] == '\\' {
			i++
		}
		i++
	}
	return i
}

// awkVerdict allows awk programs that neither run commands nor write
// files: system(), pipes and output redirection make them dangerous.
func awkVerdict(args []word) verdict {
	var progs []string
	i := 0
	for ; i < len(args); i++ {
		w := args[i]
		if !w.static {
			return dangerous("awk has arguments only known at run time")
		}
		t := w.text
		switch {
		case t == "--":
			i++
		case t == "-v" || t == "-F" || longPrefix(t, "--assign", minAbbrev) && !strings.Contains(t, "=") ||
			longPrefix(t, "--field-separator", minAbbrev) && !strings.Contains(t, "="):
			i++
			continue
		case strings.HasPrefix(t, "-v") || strings.HasPrefix(t, "-F") || longPrefix(t, "--assign", minAbbrev) || longPrefix(t, "--field-separator", minAbbrev):
			continue
		case t == "-e" || t == "--source":
			if i+1 < len(args) {
				i++
				progs = append(progs, args[i].text)
			}
			continue
		case strings.HasPrefix(t, "--source="):
			progs = append(progs, strings.TrimPrefix(t, "--source="))
			continue
		case t == "--posix" || t == "--traditional" || t == "--sandbox" || t == "--re-interval" || t == "--characters-as-bytes" ||
			t == "-c" || t == "-P" || t == "-r" || t == "-b" || t == "-S":
			continue
		case strings.HasPrefix(t, "-") && t != "-":
			return dangerous("awk %s is not known to be read-only", t)
		}
		break
	}
	if len(progs) == 0 && i < len(args) {
		progs = append(progs, args[i].text)
	}
	for _, p := range progs {
		if strings.Contains(p, "system") || strings.ContainsAny(p, "|>") || strings.Contains(p, "@load") {
			return dangerous("the awk program can run commands or write files")
		}
	}
	return safe()
}

// tarVerdict allows listing an archive only.
func tarVerdict(args []word) verdict {
	list := false
	mode := func(c rune) verdict {
		switch {
		case c == 't':
			list = true
		case strings.ContainsRune("xcruAIFg", c):
			return dangerous("tar -%c writes files or runs a program", c)
		}
		return safe()
	}
	for i, w := range args {
		t := w.text
		if !w.static {
			return dangerous("tar has arguments only known at run time")
		}
		switch {
		case i == 0 && !strings.HasPrefix(t, "-"): // old-style bundle: tar tvf x.tar
			for _, c := range t {
				if v := mode(c); v.class != Safe {
					return v
				}
			}
		case t == "--list":
			list = true
		case strings.HasPrefix(t, "--"):
			for _, bad := range []string{"--to-command", "--use-compress-program", "--checkpoint-action", "--rmt-command",
				"--rsh-command", "--info-script", "--new-volume-script", "--index-file", "--extract", "--get", "--create",
				"--append", "--update", "--catenate", "--concatenate", "--delete", "--listed-incremental", "--compress-program"} {
				if longPrefix(t, bad, 5) {
					return dangerous("tar %s writes files or runs a program", t)
				}
			}
			list = list || longPrefix(t, "--list", minAbbrev)
		case strings.HasPrefix(t, "-"):
			for _, c := range t[1:] {
				if v := mode(c); v.class != Safe {
					return v
				}
				if strings.ContainsRune("fCTXbHKLNV", c) {
					break // the rest of the word is the option's value
				}
			}
		}
	}
	if !list {
		return dangerous("tar creates or extracts archives")
	}
	return safe()
}
