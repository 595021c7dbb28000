package acp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"

	sdk "github.com/coder/acp-go-sdk"
)

// maxMessageBytes caps one incoming ACP message (one line). The SDK's
// reader ends the whole connection, every session with it, on a line over
// 10 MiB; lineLimiter stops longer lines before it.
const maxMessageBytes = 8 << 20

// tooLongMethod is the extension request lineLimiter puts in place of an
// over-long request: the agent answers it with an error under the
// dropped request's id (see HandleExtensionMethod).
const tooLongMethod = "_autarch/message_too_long"

// headBytes is how much of an over-long line is kept to find its id.
const headBytes = 4 << 10

// lineLimiter passes newline-delimited messages through unchanged, except
// a line longer than max: it is dropped, never buffered whole, and in its
// place goes a short, valid request for tooLongMethod with the dropped
// request's id when the line's start shows it (jsonrpc and id usually come
// before params); when it does not (a notification, or an id after the
// params), the line is only logged.
type lineLimiter struct {
	r       *bufio.Reader
	max     int
	log     *slog.Logger
	line    []byte // the line being read
	pending []byte // bytes ready for the reader
	err     error  // the underlying reader's error, once pending is drained
}

func newLineLimiter(r io.Reader, max int, log *slog.Logger) *lineLimiter {
	return &lineLimiter{r: bufio.NewReaderSize(r, 64<<10), max: max, log: log}
}

func (l *lineLimiter) Read(p []byte) (int, error) {
	for len(l.pending) == 0 {
		if l.err != nil {
			return 0, l.err
		}
		l.next()
	}
	n := copy(p, l.pending)
	l.pending = l.pending[n:]
	return n, nil
}

// next reads one line into pending (or its replacement, or nothing), or
// sets err.
func (l *lineLimiter) next() {
	l.line = l.line[:0]
	for {
		chunk, err := l.r.ReadSlice('\n')
		if len(l.line)+len(chunk) > l.max {
			head := append([]byte(nil), l.line[:min(len(l.line), headBytes)]...)
			if len(head) < headBytes {
				head = append(head, chunk[:min(len(chunk), headBytes-len(head))]...)
			}
			size := len(l.line) + len(chunk)
			l.line = l.line[:0]
			if l.max > 4*headBytes {
				l.line = nil // give a large buffer back
			}
			for errors.Is(err, bufio.ErrBufferFull) {
				chunk, err = l.r.ReadSlice('\n')
				size += len(chunk)
			}
			l.pending = l.replacement(head, size)
			if err != nil {
				l.err = err
			}
			return
		}
		l.line = append(l.line, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		l.pending = l.line
		if err != nil {
			l.err = err
		}
		return
	}
}

// replacement is what goes to the SDK in place of an over-long line.
func (l *lineLimiter) replacement(head []byte, size int) []byte {
	id, method := headFields(head)
	if id == nil {
		l.log.Error("acp: dropped an over-long message without an id it could find; no reply can be sent",
			"bytes", size, "limit", l.max, "method", method)
		return nil
	}
	l.log.Warn("acp: answered an over-long message with an error", "bytes", size, "limit", l.max, "method", method, "id", string(id))
	params, _ := json.Marshal(tooLongParams{Bytes: size, Limit: l.max, Method: method})
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"method":%q,"params":%s}`+"\n", id, tooLongMethod, params)
}

// tooLongParams describe the dropped message to the agent's handler.
type tooLongParams struct {
	Bytes  int    `json:"bytes"`
	Limit  int    `json:"limit"`
	Method string `json:"method,omitempty"`
}

// headFields finds, in the start of a JSON-RPC message, its top-level id
// (a number or a string, as JSON) and method, reading members in order
// until one is cut off.
func headFields(head []byte) (id json.RawMessage, method string) {
	dec := json.NewDecoder(bytes.NewReader(head))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, ""
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			break
		}
		key, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			break
		}
		switch key {
		case "id":
			if len(v) > 0 && (v[0] == '"' || v[0] == '-' || v[0] >= '0' && v[0] <= '9') && len(v) <= 128 {
				id = v
			}
		case "method":
			json.Unmarshal(v, &method)
		}
	}
	return id, method
}

// HandleExtensionMethod answers the extension requests the agent knows:
// only tooLongMethod, which lineLimiter puts in place of a request too
// long to read, answered with an error under that request's id.
func (a *Agent) HandleExtensionMethod(ctx context.Context, method string, params json.RawMessage) (any, error) {
	if method != tooLongMethod {
		return nil, sdk.NewMethodNotFound(method)
	}
	var p tooLongParams
	json.Unmarshal(params, &p)
	what := "the message"
	if p.Method != "" {
		what = "the " + p.Method + " request"
	}
	return nil, &sdk.RequestError{Code: -32600, Message: fmt.Sprintf(
		"%s is %d bytes, more than the %d autarch accepts in one message, so it was not read: "+
			"send less in one message (attach large content as a resource link or a file path instead of inline)",
		what, p.Bytes, p.Limit)}
}
