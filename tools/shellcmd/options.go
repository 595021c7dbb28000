package shellcmd

import (
	"slices"
	"strings"
)

// optSpec describes a command's options, getopt style.
type optSpec struct {
	short    string   // short options that take a value (next word or rest of the word)
	optShort string   // short options whose value can only be attached (-i[R])
	long     []string // long options that take a value as the next word
	numeric  bool     // -NUM is an option (nice -10)
	permute  bool     // options may follow operands (GNU); otherwise the first operand ends them
}

// opt is one parsed option: its name (-o, --output) and value.
type opt struct {
	name, value string
}

// parse splits args into options and operands. ok is false when a word
// in the options is only known at run time, so the split is a guess.
func (o optSpec) parse(args []word) (opts []opt, operands []word, ok bool) {
	ok = true
	for i := 0; i < len(args); i++ {
		w := args[i]
		t := w.text
		if !w.static {
			ok = false
			if !o.permute {
				return opts, append(operands, args[i:]...), ok
			}
			operands = append(operands, w)
			continue
		}
		if t == "--" {
			return opts, append(operands, args[i+1:]...), ok
		}
		if len(t) < 2 || t[0] != '-' {
			if !o.permute {
				return opts, append(operands, args[i:]...), ok
			}
			operands = append(operands, w)
			continue
		}
		if strings.HasPrefix(t, "--") {
			n, v, has := strings.Cut(t, "=")
			if !has && slices.Contains(o.long, n[2:]) && i+1 < len(args) {
				i++
				v = args[i].text
				ok = ok && args[i].static
			}
			opts = append(opts, opt{name: n, value: v})
			continue
		}
		if o.numeric && digits(t[1:]) {
			opts = append(opts, opt{name: t})
			continue
		}
		for j := 1; j < len(t); j++ {
			c := t[j]
			switch {
			case strings.IndexByte(o.short, c) >= 0:
				v := t[j+1:]
				if v == "" && i+1 < len(args) {
					i++
					v = args[i].text
					ok = ok && args[i].static
				}
				opts = append(opts, opt{name: "-" + string(c), value: v})
				j = len(t)
			case strings.IndexByte(o.optShort, c) >= 0:
				opts = append(opts, opt{name: "-" + string(c), value: t[j+1:]})
				j = len(t)
			default:
				opts = append(opts, opt{name: "-" + string(c)})
			}
		}
	}
	return opts, operands, ok
}

// has returns the first option matching one of names, where a long name
// also matches its unambiguous abbreviations of at least minAbbrev
// characters (getopt_long accepts --out for --output).
func has(opts []opt, names ...string) (opt, bool) {
	for _, o := range opts {
		for _, n := range names {
			if o.name == n || strings.HasPrefix(n, "--") && longPrefix(o.name, n, minAbbrev) {
				return o, true
			}
		}
	}
	return opt{}, false
}

// minAbbrev is the shortest long option abbreviation taken to mean an
// option: conservative, as a shorter one is ambiguous or rejected.
const minAbbrev = 4

// longPrefix reports whether arg (up to any =) abbreviates the long
// option full, with at least min characters.
func longPrefix(arg, full string, min int) bool {
	name, _, _ := strings.Cut(arg, "=")
	return len(name) >= min && strings.HasPrefix(full, name)
}

// digits reports whether s is a non-empty run of ASCII digits.
func digits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
