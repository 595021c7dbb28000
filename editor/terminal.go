package editor

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"go.lsp.dev/protocol"
)

// ErrNoTTY is returned when a question needs a person and there is none.
var ErrNoTTY = errors.New("No TTY available for confirmation")

// Terminal is the Client of the CLI: messages on Out (stderr), answers read
// from In. When Interactive is false, nothing is asked: approvals and
// questions fail with ErrNoTTY unless AutoApprove is set (approvals are
// then approved and questions answered by autoAnswer).
type Terminal struct {
	In          io.Reader
	Out         io.Writer
	Interactive bool
	// AutoApprove approves every approval (the CLI's --yes).
	AutoApprove bool
	// NoTTYHint says how to go on without a terminal, e.g. "pass --yes to
	// approve every card and tool call"; it ends ErrNoTTY's text.
	NoTTYHint string

	mu    sync.Mutex
	start sync.Once
	lines chan lineRead
	// end is the error that ended In, once read (io.EOF).
	end error
}

// lineRead is one line of In, or the error that ended it.
type lineRead struct {
	line string
	err  error
}

var _ Client = (*Terminal)(nil)

// noTTY is ErrNoTTY for what could not be asked, with the way on.
func (t *Terminal) noTTY(what string) error {
	hint := t.NoTTYHint
	if hint == "" {
		hint = "run autarch in a terminal"
	}
	return fmt.Errorf("%w: %s, but stdin is not a terminal; %s", ErrNoTTY, what, hint)
}

// readLine reads the next line of In (trimmed), or returns ctx's cause
// when ctx ends first: a prompt gives way when the run is stopped (from
// another terminal: autarch stop), and the line typed later is kept for
// the next prompt. Lines are read by one goroutine for the Terminal's
// life, as a blocked read of a terminal cannot be interrupted.
func (t *Terminal) readLine(ctx context.Context) (string, error) {
	t.start.Do(func() {
		t.lines = make(chan lineRead)
		go func() {
			r := bufio.NewReader(t.In)
			for {
				line, err := r.ReadString('\n')
				if err != nil && line != "" {
					err = nil // the last line, without its newline
				}
				t.lines <- lineRead{line, err}
				if err != nil {
					return
				}
			}
		}()
	})
	if t.end != nil {
		return "", t.end
	}
	select {
	case <-ctx.Done():
		fmt.Fprintln(t.out())
		return "", context.Cause(ctx)
	case l := <-t.lines:
		if l.err != nil {
			t.end = l.err
			return "", l.err
		}
		return strings.TrimSpace(l.line), nil
	}
}

// stopped reports whether err is the end of the context, not of input.
func stopped(ctx context.Context, err error) bool { return err != nil && ctx.Err() != nil }

var levels = map[MessageType]string{Error: "error", Warning: "warning", Info: "info", Log: "log"}

func (t *Terminal) ShowMessage(ctx context.Context, typ MessageType, msg string) error {
	_, err := fmt.Fprintf(t.out(), "autarch %s: %s\n", levels[typ], msg)
	return err
}

func (t *Terminal) LogMessage(ctx context.Context, typ MessageType, msg string) error {
	_, err := fmt.Fprintf(t.out(), "  %s\n", msg)
	return err
}

func (t *Terminal) ShowMessageRequest(ctx context.Context, typ MessageType, msg string, actions []string) (string, error) {
	if !t.Interactive {
		return "", t.noTTY(fmt.Sprintf("%q needs a choice", msg))
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	fmt.Fprintf(t.out(), "%s\n", msg)
	for i, a := range actions {
		fmt.Fprintf(t.out(), "  %d) %s\n", i+1, a)
	}
	fmt.Fprint(t.out(), "choose a number (empty to skip): ")
	line, err := t.readLine(ctx)
	if stopped(ctx, err) {
		return "", err
	}
	if err != nil {
		return "", nil
	}
	ans, err := ParseAnswer(Question{Type: SingleSelect, Prompt: msg, Options: actions}, line)
	if err != nil {
		return "", nil
	}
	return ans.Values[0], nil
}

func (t *Terminal) Approve(ctx context.Context, a Approval) (Verdict, error) {
	if t.AutoApprove {
		// Said in the log as the questions' auto-answers are: what was
		// asked and what --yes answered.
		t.mu.Lock()
		fmt.Fprintf(t.out(), "? %s\n  auto-answered (--yes): approved\n", a.Title)
		t.mu.Unlock()
		return Verdict{Decision: DecisionApprove}, nil
	}
	if !t.Interactive {
		return Verdict{}, t.noTTY(fmt.Sprintf("%q needs your approval", a.Title))
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	fmt.Fprintf(t.out(), "\n%s\n", a.Title)
	if a.Reason != "" {
		fmt.Fprintf(t.out(), "why: %s\n", a.Reason)
	}
	if a.Detail != "" {
		fmt.Fprintf(t.out(), "%s\n", a.Detail)
	}
	prompt := "approve [y], reject [n]"
	if a.AllowAlways {
		prompt += ", always allow [w]"
	}
	if a.AllowAbort {
		prompt += ", abort all [x]"
	}
	fmt.Fprintf(t.out(), "%s? ", prompt)
	line, err := t.readLine(ctx)
	for err == nil && strings.EqualFold(line, "a") {
		// The spec's [y/n/a] aborts with a, Autarch's earlier prompt
		// approved with it: neither habit may do the opposite of what
		// was meant, so a is no answer.
		fmt.Fprintf(t.out(), "a is not an answer here: type y to approve or n to reject%s. %s? ", map[bool]string{true: ", x to abort all", false: ""}[a.AllowAbort], prompt)
		line, err = t.readLine(ctx)
	}
	if stopped(ctx, err) {
		return Verdict{}, err
	}
	if err != nil {
		return Verdict{Decision: DecisionDismissed}, nil
	}
	d, ok := ParseDecision(line, a)
	switch {
	case !ok:
		return Verdict{Decision: DecisionDismissed}, nil
	case d == DecisionReject:
		fmt.Fprint(t.out(), "feedback (optional): ")
		fb, err := t.readLine(ctx)
		if stopped(ctx, err) {
			return Verdict{}, err
		}
		return Verdict{Decision: DecisionReject, Feedback: fb}, nil
	}
	return Verdict{Decision: d}, nil
}

func (t *Terminal) Ask(ctx context.Context, qs []Question) ([]Answer, error) {
	if !t.Interactive && t.AutoApprove {
		return t.autoAnswer(qs), nil
	}
	if !t.Interactive {
		return nil, t.noTTY(fmt.Sprintf("%s needs your answer", plural(len(qs), "question")))
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	answers := make([]Answer, len(qs))
	for i, q := range qs {
		fmt.Fprintf(t.out(), "\n%s\n", q.Prompt)
		for j, o := range q.Options {
			fmt.Fprintf(t.out(), "  %d) %s\n", j+1, o)
		}
		switch q.Type {
		case FreeText:
			fmt.Fprint(t.out(), "answer: ")
		case MultiSelect:
			fmt.Fprint(t.out(), "numbers separated by spaces: ")
		case Ranked:
			fmt.Fprint(t.out(), "all numbers, best first: ")
		default:
			fmt.Fprint(t.out(), "number: ")
		}
		line, err := t.readLine(ctx)
		if stopped(ctx, err) {
			return nil, err
		}
		if err != nil || line == "" {
			answers[i] = Answer{Dismissed: true}
			continue
		}
		ans, err := ParseAnswer(q, line)
		if err != nil {
			answers[i] = Answer{Dismissed: true}
			continue
		}
		answers[i] = ans
	}
	return answers, nil
}

// terminalProgress prints progress as lines.
type terminalProgress struct {
	t     *Terminal
	title string
	done  chan struct{}
}

func (p *terminalProgress) Report(ctx context.Context, message string, percent int) error {
	if percent >= 0 {
		_, err := fmt.Fprintf(p.t.out(), "%s: %s (%d%%)\n", p.title, message, percent)
		return err
	}
	_, err := fmt.Fprintf(p.t.out(), "%s: %s\n", p.title, message)
	return err
}

func (p *terminalProgress) End(ctx context.Context, message string) error {
	_, err := fmt.Fprintf(p.t.out(), "%s: %s\n", p.title, message)
	return err
}

func (p *terminalProgress) Cancelled() <-chan struct{} { return p.done }

func (t *Terminal) StartProgress(ctx context.Context, title string, cancellable bool) (Progress, error) {
	fmt.Fprintf(t.out(), "%s…\n", title)
	return &terminalProgress{t: t, title: title, done: make(chan struct{})}, nil
}

func (t *Terminal) ApplyEdit(ctx context.Context, label string, edit protocol.WorkspaceEdit) (bool, error) {
	return false, fmt.Errorf("the terminal cannot apply workspace edits (%s)", label)
}

func (t *Terminal) PublishDiagnostics(ctx context.Context, params protocol.PublishDiagnosticsParams) error {
	for _, d := range params.Diagnostics {
		fmt.Fprintf(t.out(), "%s:%d: %v\n", params.URI.FsPath(), d.Range.Start.Line+1, d.Message)
	}
	return nil
}

func (t *Terminal) ShowDocument(ctx context.Context, params protocol.ShowDocumentParams) (bool, error) {
	fmt.Fprintf(t.out(), "open %s\n", params.URI.FsPath())
	return true, nil
}

func (t *Terminal) Notify(ctx context.Context, method string, params any) error { return nil }

func (t *Terminal) Call(ctx context.Context, method string, params, result any) error {
	return fmt.Errorf("%s is not available in the terminal", method)
}

// NoPreference is the free-text answer given without a person (--yes).
const NoPreference = "No preference: use your best judgement."

// autoAnswer answers questions without a person (--yes on a headless run):
// the first option, the options in their order for ranked, NoPreference
// for free text. Each answer is printed so the run's log shows it.
func (t *Terminal) autoAnswer(qs []Question) []Answer {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]Answer, len(qs))
	for i, q := range qs {
		switch {
		case q.Type == Ranked:
			out[i] = Answer{Values: append([]string(nil), q.Options...)}
		case q.Type == FreeText || len(q.Options) == 0:
			out[i] = Answer{Values: []string{NoPreference}}
		default:
			out[i] = Answer{Values: []string{q.Options[0]}}
		}
		fmt.Fprintf(t.out(), "? %s\n  auto-answered (--yes): %s\n", q.Prompt, strings.Join(out[i].Values, ", "))
	}
	return out
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
