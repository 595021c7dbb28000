package verify

import (
	"bufio"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

func (d Detector) rustChecks(dir string) []Check {
	var gone string
	if !d.look("cargo") {
		gone = missing("cargo", "install Rust with rustup (https://rustup.rs)")
	}
	clippy := Check{Name: "clippy", Kind: Lint, Dir: dir, Missing: gone, parse: parseCargoMessages, command: func(t Target) string {
		args := []string{"cargo", "clippy", "--message-format=json", "--all-targets"}
		if t.Fix {
			args = append(args, "--fix", "--allow-dirty", "--allow-staged", "--allow-no-vcs")
		}
		return quote(args)
	}}
	if gone == "" && !d.look("cargo-clippy") {
		clippy.Missing = missing("clippy", "rustup component add clippy")
	}
	return []Check{
		{Name: "cargo check", Kind: Build, Dir: dir, Missing: gone, parse: parseCargoMessages,
			command: func(Target) string { return "cargo check --message-format=json --all-targets" }},
		{Name: "cargo test", Kind: Test, Dir: dir, Missing: gone, parse: parseCargoTest, command: func(t Target) string {
			args := []string{"cargo", "test", "--message-format=json", "--color", "never"}
			if t.Pattern != "" {
				args = append(args, "--", t.Pattern)
			}
			return quote(args)
		}},
		clippy,
	}
}

// cargoMessage is one line of cargo's --message-format=json.
type cargoMessage struct {
	Reason  string `json:"reason"`
	Message *struct {
		Message string `json:"message"`
		Level   string `json:"level"`
		Code    *struct {
			Code string `json:"code"`
		} `json:"code"`
		Spans []struct {
			File      string `json:"file_name"`
			Line      int    `json:"line_start"`
			Column    int    `json:"column_start"`
			IsPrimary bool   `json:"is_primary"`
		} `json:"spans"`
		Rendered string `json:"rendered"`
	} `json:"message"`
}

// cargoIssues reads the compiler messages among cargo's JSON lines; the
// other lines (a test harness's output) are returned as text.
func cargoIssues(stdout string) (issues []Issue, rendered []string, text string) {
	var b strings.Builder
	seen := map[Issue]bool{} // --all-targets reports a library's findings once per target
	sc := bufio.NewScanner(strings.NewReader(stdout))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		var m cargoMessage
		if !strings.HasPrefix(line, "{") || json.Unmarshal([]byte(line), &m) != nil {
			b.WriteString(line + "\n")
			continue
		}
		if m.Reason != "compiler-message" || m.Message == nil {
			continue
		}
		sev := m.Message.Level
		switch sev {
		case "error", "warning":
		default:
			continue // notes, help, "aborting due to…" summaries
		}
		if len(m.Message.Spans) == 0 {
			continue
		}
		is := Issue{Severity: sev, Message: m.Message.Message}
		if m.Message.Code != nil {
			is.Rule = m.Message.Code.Code
		}
		sp := m.Message.Spans[0]
		for _, s := range m.Message.Spans {
			if s.IsPrimary {
				sp = s
				break
			}
		}
		is.File, is.Line, is.Column = sp.File, sp.Line, sp.Column
		if seen[is] {
			continue
		}
		seen[is] = true
		issues = append(issues, is)
		rendered = append(rendered, m.Message.Rendered)
	}
	return issues, rendered, b.String()
}

// parseCargoMessages reads cargo check and clippy.
func parseCargoMessages(r *Report, out Output) {
	r.Issues, _, _ = cargoIssues(out.Stdout)
	if out.ExitCode != 0 && r.Errors() == 0 {
		r.fail(r.Check + " failed:\n" + firstLines(out.Stderr, 30))
	}
}

var (
	cargoResult = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored`)
	})
	cargoFailure = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^---- (\S+) stdout ----$`) })
	cargoPanic   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`panicked at ([^:]+):(\d+):\d+:?`) })
)

// parseCargoTest reads cargo test: compile errors from its JSON messages,
// test results from the harness's text (libtest's JSON output is
// unstable), each failure's captured output as its message.
func parseCargoTest(r *Report, out Output) {
	issues, rendered, text := cargoIssues(out.Stdout)
	for i, is := range issues {
		if is.Severity != "error" {
			continue
		}
		r.Failures = append(r.Failures, TestFailure{Name: buildFailed + is.File, Message: clip(strings.TrimSpace(rendered[i]), maxMessage), File: is.File, Line: is.Line})
		r.Failed++
	}
	var cur *TestFailure
	var msg []string
	flush := func() {
		if cur != nil {
			cur.Message = clip(strings.TrimSpace(strings.Join(msg, "\n")), maxMessage)
			if m := cargoPanic().FindStringSubmatch(cur.Message); m != nil {
				cur.File = m[1]
				cur.Line, _ = strconv.Atoi(m[2])
			}
			r.Failures = append(r.Failures, *cur)
		}
		cur, msg = nil, nil
	}
	for _, line := range strings.Split(text, "\n") {
		if m := cargoResult().FindStringSubmatch(line); m != nil {
			flush()
			p, _ := strconv.Atoi(m[1])
			f, _ := strconv.Atoi(m[2])
			s, _ := strconv.Atoi(m[3])
			r.Passed, r.Failed, r.Skipped = r.Passed+p, r.Failed+f, r.Skipped+s
			continue
		}
		if m := cargoFailure().FindStringSubmatch(line); m != nil {
			flush()
			cur = &TestFailure{Name: m[1]}
			continue
		}
		if cur != nil {
			if line == "failures:" || strings.HasPrefix(line, "note: run with `RUST_BACKTRACE") {
				flush()
				continue
			}
			msg = append(msg, line)
		}
	}
	flush()
	if out.ExitCode != 0 && r.Failed == 0 {
		r.fail("cargo test failed:\n" + firstLines(out.Stderr, 30))
	}
}
