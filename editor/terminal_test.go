package editor

import (
	"context"
	"errors"
	"fmt"
	"io"
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
		{name: "approve", input: "y\n", a: Approval{Title: "Allow shell?"}, want: Verdict{Decision: DecisionApprove}, prompt: "approve [y], reject [n]? "},
		{name: "a is no answer: asked again", input: "a\ny\n", a: Approval{Title: "Allow shell?", AllowAbort: true}, want: Verdict{Decision: DecisionApprove},
			prompt: "a is not an answer here: type y to approve or n to reject, x to abort all. approve [y], reject [n], abort all [x]? "},
		{name: "a is no answer: abort after it", input: "A\nx\n", a: Approval{Title: "Allow shell?", AllowAbort: true}, want: Verdict{Decision: DecisionAbort}},
		{name: "a then end of input dismisses", input: "a\n", a: Approval{Title: "Allow shell?", AllowAbort: true}, want: Verdict{Decision: DecisionDismissed}},
		{name: "reject with n", input: "n\n\n", a: Approval{Title: "Allow shell?"}, want: Verdict{Decision: DecisionReject}},
		{name: "reject with feedback", input: "r\nuse make instead\n", a: Approval{Title: "Allow shell?"}, want: Verdict{Decision: DecisionReject, Feedback: "use make instead"}},
		{name: "always allow when offered", input: "w\n", a: Approval{Title: "Allow shell?", AllowAlways: true}, want: Verdict{Decision: DecisionAlwaysAllow}, prompt: "always allow [w]? "},
		{name: "always refused when not offered", input: "w\n", a: Approval{Title: "Approve scope?"}, want: Verdict{Decision: DecisionDismissed}},
		{name: "abort all when offered", input: "x\n", a: Approval{Title: "Allow shell?", AllowAlways: true, AllowAbort: true}, want: Verdict{Decision: DecisionAbort},
			prompt: "approve [y], reject [n], always allow [w], abort all [x]? "},
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

// A prompt gives way when its context ends (the run was stopped from
// another terminal), and what is typed later goes to the next prompt
// (issue 31.7).
func TestTerminalPromptEndsWithTheRun(t *testing.T) {
	in, typed := io.Pipe()
	term := &Terminal{In: in, Out: io.Discard, Interactive: true} // what it shows is not checked here
	stop := errors.New("the workflow was stopped")
	for name, ask := range map[string]func(ctx context.Context) error{
		"approval": func(ctx context.Context) error {
			_, err := term.Approve(ctx, Approval{Title: "Approve the scope?"})
			return err
		},
		"question": func(ctx context.Context) error {
			_, err := term.Ask(ctx, []Question{{Type: FreeText, Prompt: "Reply to the scoping agent"}})
			return err
		},
		"choice": func(ctx context.Context) error {
			_, err := term.ShowMessageRequest(ctx, Info, "Which?", []string{"a", "b"})
			return err
		},
	} {
		ctx, cancel := context.WithCancelCause(context.Background())
		done := make(chan error, 1)
		go func() { done <- ask(ctx) }()
		cancel(stop)
		if err := <-done; !errors.Is(err, stop) {
			t.Errorf("%s: err = %v, want the context's cause", name, err)
		}
	}
	go typed.Write([]byte("y\n"))
	v, err := term.Approve(context.Background(), Approval{Title: "Approve the plan?"})
	if err != nil || v.Decision != DecisionApprove {
		t.Errorf("the next prompt got %+v, %v; want the line typed after the stop", v, err)
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
