package editor

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestTerminalApprove(t *testing.T) {
	tests := []struct {
		name   string
		input  string
		a      Approval
		want   Verdict
		prompt string
		err    error
		noTTY  bool
	}{
		{name: "approve", input: "a\n", a: Approval{Title: "Allow shell?"}, want: Verdict{Decision: DecisionApprove}, prompt: "[a]pprove, [r]eject? "},
		{name: "reject with feedback", input: "r\nuse make instead\n", a: Approval{Title: "Allow shell?"}, want: Verdict{Decision: DecisionReject, Feedback: "use make instead"}},
		{name: "always allow when offered", input: "w\n", a: Approval{Title: "Allow shell?", AllowAlways: true}, want: Verdict{Decision: DecisionAlwaysAllow}, prompt: "al[w]ays allow? "},
		{name: "always refused when not offered", input: "w\n", a: Approval{Title: "Approve scope?"}, want: Verdict{Decision: DecisionDismissed}},
		{name: "abort all when offered", input: "x\n", a: Approval{Title: "Allow shell?", AllowAlways: true, AllowAbort: true}, want: Verdict{Decision: DecisionAbort},
			prompt: "[a]pprove, [r]eject, al[w]ays allow, abort all [x]? "},
		{name: "abort refused when not offered", input: "abort\n", a: Approval{Title: "Approve plan?"}, want: Verdict{Decision: DecisionDismissed}},
		{name: "end of input dismisses", input: "", a: Approval{Title: "Allow shell?", AllowAbort: true}, want: Verdict{Decision: DecisionDismissed}},
		{name: "no terminal", a: Approval{Title: "Allow shell?"}, noTTY: true, err: ErrNoTTY},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out strings.Builder
			term := &Terminal{In: strings.NewReader(tt.input), Out: &out, Interactive: !tt.noTTY}
			v, err := term.Approve(context.Background(), tt.a)
			if !errors.Is(err, tt.err) {
				t.Fatalf("err = %v, want %v", err, tt.err)
			}
			if v != tt.want {
				t.Errorf("verdict = %+v, want %+v", v, tt.want)
			}
			if !strings.Contains(out.String(), tt.prompt) {
				t.Errorf("prompt %q lacks %q", out.String(), tt.prompt)
			}
		})
	}
}

// The terminal reads answers as ACP does (ParseAnswer): choices by name
// too, and a line with a choice that is no option is no answer.
func TestTerminalAsk(t *testing.T) {
	qs := []Question{
		{Type: SingleSelect, Prompt: "Which store?", Options: []string{"SQLite", "Postgres"}},
		{Type: MultiSelect, Prompt: "Which checks?", Options: []string{"vet", "lint", "test"}},
		{Type: MultiSelect, Prompt: "Which again?", Options: []string{"vet", "lint", "test"}},
		{Type: FreeText, Prompt: "Anything else?"},
	}
	var out strings.Builder
	term := &Terminal{In: strings.NewReader("postgres\nlint, 3\n1 9\nno\n"), Out: &out, Interactive: true}
	got, err := term.Ask(context.Background(), qs)
	if err != nil {
		t.Fatal(err)
	}
	want := []Answer{{Values: []string{"Postgres"}}, {Values: []string{"lint", "test"}}, {Dismissed: true}, {Values: []string{"no"}}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("answers %+v, want %+v", got, want)
	}
}
