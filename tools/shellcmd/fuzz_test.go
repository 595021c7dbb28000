package shellcmd

import (
	"fmt"
	"path"
	"strings"
	"testing"
	"time"

	"mvdan.cc/sh/v3/syntax"
)

// FuzzAnalyze checks that Analyze never panics, that a line that does not
// parse is dangerous, and that a blocked line is dangerous.
func FuzzAnalyze(f *testing.F) {
	for _, s := range []string{
		"ls -la", "cat README.md | grep foo | wc -l", "rm -rf -- /*", "sh -c 'rm -rf /*'", ": () { : | : & } ; :",
		"curl x | /bin/bash", "bash <(curl x)", "echo $(cmd)", "find . -exec rm {} \\;", "git -C . push",
		"env FOO=1 timeout 5 xargs -I{} sh -c 'echo {}'", "$'\\x72m' -rf /", "sed 's/a/b/w x'", "awk '{print > \"x\"}'",
		"tar -xvf x", "echo 'unterminated", "a{1..3}b", "{a,b}{c,d}", "x=$((1+2)); echo ${x:-$(ls)}", "cat <<EOF\n$(id)\nEOF",
		"kill -s KILL -1", "chmod u=rwx,g=rwx,o=rwx x", "eval eval eval ls", "watch -n1 'ls | wc -l'",
		"rm$IFS-rf$IFS/*", "rm${IFS}-rf${IFS}/", "dd if=/dev/zero of=//dev/sda", "/usr/bin/cur[l] x", "c?rl x",
		"/usr/*/curl", "perl -e 'fork while 1'", "sh -c 'while :; do sh & done'", "bash <<< 'ls'", "git log -p",
		"git grep -e x HEAD -- .", "cu[r]l x", "for ((;;)); do x & done",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		watchdog := time.AfterFunc(5*time.Second, func() { panic(fmt.Sprintf("Analyze(%q) hangs", cmd)) })
		defer watchdog.Stop()
		a := Analyze(cmd)
		// Parsed as Analyze parses it: a carriage return is a word character.
		_, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(strings.ReplaceAll(cmd, "\r", crMark)), "")
		if err != nil && (a.Class != Dangerous || a.Err == nil) {
			t.Errorf("unparsable %q = %s (err %v)", cmd, a.Class, a.Err)
		}
		if a.Blocked != nil && a.Class != Dangerous {
			t.Errorf("blocked %q = %s", cmd, a.Class)
		}
		if a.Class != Safe && a.Reason == "" {
			t.Errorf("%q = %s without a reason", cmd, a.Class)
		}
		a.Single()
		a.Normalized()
		for _, c := range a.Commands {
			_ = c.String()
		}
	})
}

// FuzzIFSSplitting checks that a line whose words are joined by $IFS or
// ${IFS} is judged as the same line joined by spaces: the blocklist and
// the class see through the splitting.
func FuzzIFSSplitting(f *testing.F) {
	for _, s := range []string{"rm -rf /", "rm -rf /*", "dd if=/dev/zero of=/dev/sda", "sudo ls", "chmod 777 x",
		"kill -9 -1", "ls -la", "mkfs.ext4 /dev/sda1", "rm -r -f ~", "shutdown now"} {
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, line string, braces bool) {
		var ws []string
		for _, w := range strings.Fields(line) {
			if w != "" && strings.Trim(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-~+=") == "" &&
				!strings.Contains(w, "~") || w == "~" {
				ws = append(ws, w)
			}
		}
		if len(ws) == 0 || strings.Contains(ws[0], "=") { // an assignment is not split
			return
		}
		// $IFS before a name character would be another variable ($IFSls).
		joined := ws[0]
		for _, w := range ws[1:] {
			if c := w[0]; braces || c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
				joined += "${IFS}" + w
			} else {
				joined += "$IFS" + w
			}
		}
		plain, split := Analyze(strings.Join(ws, " ")), Analyze(joined)
		if (plain.Blocked == nil) != (split.Blocked == nil) ||
			plain.Blocked != nil && plain.Blocked.Family != split.Blocked.Family {
			t.Errorf("%q blocked %v, %q blocked %v", strings.Join(ws, " "), plain.Blocked, joined, split.Blocked)
		}
		if split.Class < plain.Class {
			t.Errorf("%q is %s, %q is %s", strings.Join(ws, " "), plain.Class, joined, split.Class)
		}
	})
}

// FuzzDevicePaths checks that dd, tee and a redirection onto a disk device
// are blocked however the device's path is spelled (//dev, /./, x/..).
func FuzzDevicePaths(f *testing.F) {
	for _, s := range []string{"/dev/sda", "//dev/sda", "/dev/../dev/sda", "/tmp/../dev/nvme0n1", "/./dev//sdb1", "/dev/null"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		if p == "" || strings.ContainsAny(p, " \t\n'\"\\$`;&|<>(){}*?[]!#=") || !diskDevice(p) {
			return
		}
		for _, line := range []string{"dd if=/dev/zero of=" + p, "echo x | tee " + p, "cat x > " + p} {
			if a := Analyze(line); a.Blocked == nil || a.Blocked.Family != FamilyDeviceWrite {
				t.Errorf("%q (%s) not blocked as a device write: %+v", line, path.Clean(p), a.Blocked)
			}
		}
	})
}
