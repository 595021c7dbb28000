package acp

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestOverlongMessage: on a real connection, a 30 MB request is answered
// with a JSON-RPC error under its id, saying what happened and what to do;
// a 30 MB notification and a 30 MB request whose id comes after its params
// are dropped; the connection and every session on it go on answering, and
// a large message under the limit still goes through whole.
func TestOverlongMessage(t *testing.T) {
	a := testAgent(t)
	p := serve(t, a)
	repo := gitRepo(t)
	one := newSession(t, p, repo, ModeWorkflow)
	r := p.call(4, `{"jsonrpc":"2.0","id":4,"method":"session/new","params":{"cwd":`+quote(repo)+`,"mcpServers":[]}}`)
	var created struct {
		SessionID string `json:"sessionId"`
	}
	if r.Error != nil || json.Unmarshal(r.Result, &created) != nil {
		t.Fatalf("session/new: %+v %s", r.Error, r.Result)
	}
	two := created.SessionID
	huge := strings.Repeat("x", 30<<20)

	// Written aside: if the connection ended, the reply loop sees it end
	// instead of the write blocking.
	send := func(line string) <-chan struct{} {
		done := make(chan struct{})
		go func() {
			io.WriteString(p.w, line+"\n")
			close(done)
		}()
		return done
	}
	start := time.Now()
	send(`{"jsonrpc":"2.0","id":5,"method":"session/prompt","params":{"sessionId":` + quote(one) + `,"prompt":[{"type":"text","text":"` + huge + `"}]}}`)
	r, _ = p.exchange(5, "") // a blank line: skipped
	t.Logf("a 30 MB request answered in %v", time.Since(start))
	if r.Error == nil || r.Error.Code != -32600 || !strings.Contains(r.Error.Message, "the session/prompt request is 31457") ||
		!strings.Contains(r.Error.Message, "send less in one message") {
		t.Fatalf("a 30 MB request got %+v, want an Invalid Request error saying what to do", r.Error)
	}
	// Dropped without a reply: the next request is still answered.
	for _, line := range []string{
		`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":` + quote(one) + `,"x":"` + huge + `"}}`,
		`{"jsonrpc":"2.0","method":"session/prompt","params":{"x":"` + huge + `"},"id":6}`,
	} {
		select {
		case <-send(line):
		case <-time.After(time.Minute):
			t.Fatal("autarch stopped reading the connection")
		}
	}
	for _, s := range []string{two, one} {
		if r := p.call(7, `{"jsonrpc":"2.0","id":7,"method":"session/set_mode","params":{"sessionId":`+quote(s)+`,"modeId":"discuss"}}`); r.Error != nil {
			t.Errorf("session %s after the over-long messages: %+v", s, r.Error)
		}
	}
	// Under the limit, a message arrives whole (here: refused for its
	// unknown session, which needs it parsed).
	big := strings.Repeat("y", maxMessageBytes-1024)
	if r := p.call(8, `{"jsonrpc":"2.0","id":8,"method":"session/prompt","params":{"sessionId":"acp-00","prompt":[{"type":"text","text":"`+big+`"}]}}`); r.Error == nil || !strings.Contains(r.Error.Message, "unknown session") {
		t.Errorf("a message under the limit: %+v", r.Error)
	}
}

// TestLineLimiter: lines up to the limit pass through byte for byte; a
// longer one is replaced by a request for tooLongMethod with its id, or
// dropped when no id is found.
func TestLineLimiter(t *testing.T) {
	long := `{"jsonrpc":"2.0","id":"a-1","method":"m","params":"` + strings.Repeat("z", 100) + `"}`
	in := "{\"a\":1}\n\n" + long + "\n" + `{"method":"n","params":"` + strings.Repeat("z", 100) + `"}` + "\n" +
		`{"params":"` + strings.Repeat("z", 100) + `","id":3}` + "\n" + "{\"b\":2}"
	var out bytes.Buffer
	if _, err := io.Copy(&out, newLineLimiter(strings.NewReader(in), 64, slog.New(slog.DiscardHandler))); err != nil {
		t.Fatal(err)
	}
	want := "{\"a\":1}\n\n" + `{"jsonrpc":"2.0","id":"a-1","method":"_autarch/message_too_long","params":{"bytes":` +
		strconv.Itoa(len(long)+1) + `,"limit":64,"method":"m"}}` + "\n" +
		// An id after the params is found when the line's start holds it.
		`{"jsonrpc":"2.0","id":3,"method":"_autarch/message_too_long","params":{"bytes":121,"limit":64}}` + "\n{\"b\":2}"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}

// FuzzLineLimiter checks, for any input and limit, that every line out is
// either a line in (up to the limit, unchanged and in order) or a valid
// JSON-RPC request for tooLongMethod: an input line over the limit never
// comes out.
func FuzzLineLimiter(f *testing.F) {
	f.Add("{\"a\":1}\n{\"id\":1,\"params\":\"zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz\"}\n", 16)
	f.Add(`{"jsonrpc":"2.0","id":"x","method":"m","params":{"p":"`+strings.Repeat("q", 90)+`"}}`, 40)
	f.Add("\n\n\r\n{\"id\":9e999}\n", 3)
	f.Fuzz(func(t *testing.T, in string, max int) {
		if max < 1 || max > 1<<16 {
			return
		}
		var out bytes.Buffer
		if _, err := io.Copy(&out, newLineLimiter(strings.NewReader(in), max, slog.New(slog.DiscardHandler))); err != nil {
			t.Fatal(err)
		}
		var short []string // the input lines that must come out
		for _, l := range strings.SplitAfter(in, "\n") {
			if l != "" && len(l) <= max {
				short = append(short, l)
			}
		}
		for _, l := range strings.SplitAfter(out.String(), "\n") {
			if l == "" {
				continue
			}
			if len(short) > 0 && l == short[0] {
				short = short[1:]
				continue
			}
			var m struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Method  string          `json:"method"`
			}
			if err := json.Unmarshal([]byte(l), &m); err != nil || m.Method != tooLongMethod || m.JSONRPC != "2.0" || len(m.ID) == 0 {
				t.Fatalf("line %q is neither an input line nor a valid replacement", l)
			}
		}
		if len(short) > 0 {
			t.Fatalf("input lines missing from the output: %q", short)
		}
	})
}
