package shellcmd

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestBlocklistSeesThroughTricks: every attack of issue 29 (class 8) on
// the blocklist is refused, in every mode, with a reason.
func TestBlocklistSeesThroughTricks(t *testing.T) {
	tests := []struct {
		cmd  string
		want Family
	}{
		// $IFS is whitespace: the shell splits the word there.
		{"rm$IFS-rf$IFS/*", FamilyRecursiveRemoval},
		{"rm${IFS}-rf${IFS}/", FamilyRecursiveRemoval},
		{"rm${IFS:0:1}-rf${IFS%??}/", FamilyRecursiveRemoval},
		{"sh -c 'rm$IFS-rf$IFS~'", FamilyRecursiveRemoval},
		{"X=1 rm$IFS-r$IFS-f$IFS/etc", FamilyRecursiveRemoval},
		// Paths are what the kernel resolves.
		{"dd if=/dev/zero of=//dev/sda", FamilyDeviceWrite},
		{"dd if=/dev/zero of=/dev/../dev/sda", FamilyDeviceWrite},
		{"dd if=/dev/zero of=/tmp/../dev/nvme0n1", FamilyDeviceWrite},
		{"dd${IFS}if=/dev/zero${IFS}of=//dev/sda", FamilyDeviceWrite},
		{"cat x > //dev/sda", FamilyDeviceWrite},
		{"shred /./dev/sda", FamilyDeviceWrite},
		{"fdisk //dev/sda", FamilyFormat},
		{"rm -rf /tmp/..", FamilyRecursiveRemoval},
		// A carriage return is part of a word for bash, not a blank.
		{"dd if=/dev/zero of=/tmp/\r/../../dev/sda", FamilyDeviceWrite},
		{"cat x >/tmp/\r/../../dev/sda", FamilyDeviceWrite},
		// Globs are what the shell expands them to.
		{"rm -rf /[e]tc", FamilyRecursiveRemoval},
		{"rm -rf /e*", FamilyRecursiveRemoval},
		{"rm -rf /?sr", FamilyRecursiveRemoval},
		{"/usr/bin/r[m] -rf /", FamilyRecursiveRemoval},
		{"/bin/d? if=/dev/zero of=/dev/sda", FamilyDeviceWrite},
		// Fork bombs without a function.
		{"perl -e 'fork while 1'", FamilyForkBomb},
		{"perl -e 'while(1){fork}'", FamilyForkBomb},
		{"python3 -c 'import os\nwhile True: os.fork()'", FamilyForkBomb},
		{"python3 -c \"import os\nwhile 1:\n  os.fork()\"", FamilyForkBomb},
		{"ruby -e 'loop { fork }'", FamilyForkBomb},
		{"python3 <<'EOF'\nimport os\nwhile True:\n    os.fork()\nEOF", FamilyForkBomb},
		{"sh -c 'while :; do sh & done'", FamilyForkBomb},
		{"while true; do sleep 1 & done", FamilyForkBomb},
		{"until false; do $0 & done", FamilyForkBomb},
		{"for ((;;)); do bash -c x & done", FamilyForkBomb},
		{"while ((1)); do yes >/dev/null & done", FamilyForkBomb},
		{"bash <<< 'while :; do sh & done'", FamilyForkBomb},
		{"bash <<< 'rm -rf /'", FamilyRecursiveRemoval},
		{"sh <<'EOF'\nrm -rf ~\nEOF", FamilyRecursiveRemoval},
		// What stays allowed.
		{"rm -rf ./build", ""},
		{"rm -rf /tmp/x", ""},
		{"rm -rf \"$IFS\"", ""},
		{"echo a${IFS}b", ""},
		{"dd if=/dev/zero of=/tmp/x bs=1 count=1", ""},
		{"dd if=x of=//dev/null", ""},
		{"while read f; do gzip \"$f\" & done < list", ""},
		{"while :; do sleep 1; done", ""},
		{"python3 -c 'for i in range(3): print(i)'", ""},
		{"perl -e 'my $pid = fork; exit'", ""},
		{"for f in *.go; do gofmt -l \"$f\" & done; wait", ""},
	}
	for _, tc := range tests {
		checkBlocked(t, tc.cmd, tc.want)
	}
}

// TestBlockedCommandsSeeThroughTricks: a user's blocked_commands pattern
// matches the command however its name is spelled: globbed (against the
// programs really on PATH), quoted, escaped or run through a wrapper.
func TestBlockedCommandsSeeThroughTricks(t *testing.T) {
	bin := t.TempDir()
	for _, name := range []string{"curl", "wget"} {
		dir := filepath.Join(bin, "sub")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, d := range []string{bin, dir} {
			if err := os.WriteFile(filepath.Join(d, name), []byte("#!/bin/sh\n"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	curl := regexp.MustCompile(`^curl\b`)
	wget := regexp.MustCompile(`^wget\b`)
	patterns := []*regexp.Regexp{curl, wget}
	tests := []struct {
		cmd  string
		want *regexp.Regexp // nil: not matched
	}{
		{bin + "/cur[l] https://x", curl},
		{bin + "/*/curl https://x", curl},
		{bin + "/s?b/cu?l https://x", curl},
		{"c?rl https://x", curl},
		{"cu[r]l https://x", curl},
		{"w*et https://x", wget},
		{"'cu''rl' https://x", curl},
		{"\\curl https://x", curl},
		{"c\\url https://x", curl},
		{"\"cu\"rl https://x", curl},
		{"$'\\x63url' https://x", curl},
		{"{cu,x}rl https://x", curl},
		{"command curl https://x", curl},
		{"command -p curl https://x", curl},
		{"exec curl https://x", curl},
		{"exec -a x curl https://x", curl},
		{"builtin curl https://x", curl},
		{"busybox wget https://x", wget},
		{"env -i curl https://x", curl},
		{"curl$IFS https://x", curl},
		{"x=1; curl${IFS}https://x", curl},
		{"sh -c 'c?rl https://x'", curl},
		{"echo curl", nil},
		{"'c?rl' https://x", nil}, // quoted: the literal name c?rl
		{"c\\?rl https://x", nil},
	}
	for _, tc := range tests {
		if got, _ := FirstMatch(tc.cmd, patterns); got != tc.want {
			t.Errorf("FirstMatch(%q) = %v, want %v (commands %q)", tc.cmd, got, tc.want, Commands(tc.cmd))
		}
	}
}

// TestGitObjectReadsNeedConfirmation: git commands that print the contents
// of files from the object store are not "read-only safe" (issue 29, class
// 3); git commands that show the worktree or only names stay safe.
func TestGitObjectReadsNeedConfirmation(t *testing.T) {
	tests := []struct {
		cmd  string
		safe bool
	}{
		{"git show HEAD:.env", false},
		{"git show", false},
		{"git -C . show HEAD~3:config/secrets.yml", false},
		{"git cat-file -p HEAD:.env", false},
		{"git cat-file --batch-all-objects --batch", false},
		{"git log -p", false},
		{"git log --patch -- .env", false},
		{"git log -u", false},
		{"git log -U5", false},
		{"git log -L1,5:.env", false},
		{"git log --follow -p -- .env", false},
		{"git log -S AKIA --oneline", false},
		{"git log -GAKIA", false},
		{"git log --cc", false},
		{"git log --word-diff", false},
		{"git log -p | fold -w 8", false},
		{"git show HEAD:.env | rev", false},
		{"git grep AKIA HEAD", false},
		{"git grep --cached AKIA", false},
		{"git grep -e AKIA main -- .", false},
		{"git grep -O less AKIA", false},
		{"git archive HEAD", false},
		{"git diff HEAD~1", false},
		{"git diff main feature", false},
		{"git diff --cached", false},
		{"git diff --staged", false},
		{"git diff HEAD -- .env", false},
		{"git difftool HEAD~1", false},
		{"git blame .env", false},
		{"git format-patch -1", false},
		{"git bundle create x HEAD", false},
		{"git fast-export --all", false},
		{"git stash show -p", false},
		{"git notes show", false},
		{"git verify-pack -v x.idx", false},
		{"git unpack-objects < x.pack", false},
		{"git whatchanged -p", false},
		{"git config --blob HEAD:.gitmodules --list", false},
		{"sh -c 'git show HEAD:.env'", false},
		// What stays safe.
		{"git status", true},
		{"git log", true},
		{"git log --oneline -5", true},
		{"git log --stat -- .env", true},
		{"git log -n 3 --format=%H", true},
		{"git log -1", true},
		{"git diff", true},
		{"git diff --stat", true},
		{"git diff -- a.go", true},
		{"git branch -a", true},
		{"git rev-parse HEAD", true},
		{"git rev-parse --show-toplevel", true},
		{"git grep -n TODO", true},
		{"git grep -n TODO -- '*.go'", true},
		{"git ls-files", true},
	}
	for _, tc := range tests {
		got := Analyze(tc.cmd)
		switch {
		case tc.safe && got.Class != Safe:
			t.Errorf("Analyze(%q) = %s (%s), want safe", tc.cmd, got.Class, got.Reason)
		case !tc.safe && got.Class == Safe:
			t.Errorf("Analyze(%q) = safe, want it to need confirmation", tc.cmd)
		case !tc.safe && !strings.Contains(got.Reason, "git"):
			t.Errorf("Analyze(%q) reason %q does not say what git does", tc.cmd, got.Reason)
		}
	}
}
