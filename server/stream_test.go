package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"testing"

	"go.lsp.dev/jsonrpc2"
)

func TestReadFrame(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []string
		wantErr error
	}{
		{"one frame", "Content-Length: 2\r\n\r\n{}", []string{"{}"}, io.EOF},
		{"two frames", "Content-Length: 2\r\n\r\n{}Content-Length: 3\r\n\r\n[1]", []string{"{}", "[1]"}, io.EOF},
		{"content type header", "Content-Length: 2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}", []string{"{}"}, io.EOF},
		{"lowercase and LF only", "content-length: 2\n\n{}", []string{"{}"}, io.EOF},
		{"garbage lines first", "hello\r\nworld\r\n\r\nContent-Length: 2\r\n\r\n{}", []string{"{}"}, io.EOF},
		{"truncated body", "Content-Length: 10\r\n\r\n{}", nil, io.ErrUnexpectedEOF},
		{"truncated header", "Content-Len", nil, io.ErrUnexpectedEOF},
		{"negative length skipped", "Content-Length: -1\r\n\r\nContent-Length: 2\r\n\r\n{}", []string{"{}"}, io.EOF},
		{"empty input", "", nil, io.EOF},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := bufio.NewReader(bytes.NewBufferString(tt.in))
			var got []string
			var err error
			for {
				var body []byte
				body, _, err = readFrame(r, quietLogger())
				if err != nil {
					break
				}
				got = append(got, string(body))
			}
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("err = %v, want %v", err, tt.wantErr)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("frames = %q, want %q", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("frame %d = %q, want %q", i, got[i], tt.want[i])
				}
			}
		})
	}
}

// rwBuffer is an in-memory connection for the stream.
type rwBuffer struct {
	in  *bytes.Reader
	out bytes.Buffer
}

func (b *rwBuffer) Read(p []byte) (int, error)  { return b.in.Read(p) }
func (b *rwBuffer) Write(p []byte) (int, error) { return b.out.Write(p) }
func (b *rwBuffer) Close() error                { return nil }

// FuzzStreamRead feeds arbitrary bytes to the message reader: it must never
// panic, must end with an error at the end of input, and every message it
// returns must re-encode: written by the stream and read back, it decodes to
// an equal message.
func FuzzStreamRead(f *testing.F) {
	f.Add([]byte("Content-Length: 2\r\n\r\n{}"))
	f.Add([]byte("Content-Length: 52\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":{}}"))
	f.Add([]byte("garbage\r\nContent-Length: 5\r\n\r\n{\"a\":"))
	f.Add([]byte("Content-Length: 99999999999\r\n\r\n"))
	f.Add([]byte("\x00\xff\r\n\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		conn := &rwBuffer{in: bytes.NewReader(data)}
		s := newStream(conn, quietLogger())
		ctx := context.Background()
		for i := 0; i < len(data)+1; i++ {
			msg, _, err := s.Read(ctx)
			if err != nil {
				return
			}
			if msg == nil {
				t.Fatal("nil message without error")
			}
			checkReencode(t, msg)
		}
		t.Fatal("reader did not stop at the end of input")
	})
}

// checkReencode writes msg through a stream and reads it back: the message
// read must equal msg, and a second round trip must give the same bytes.
func checkReencode(t *testing.T, msg jsonrpc2.Message) {
	t.Helper()
	first := roundTrip(t, msg)
	got, _, err := newStream(&rwBuffer{in: bytes.NewReader(first)}, quietLogger()).Read(context.Background())
	if err != nil {
		t.Fatalf("re-encoded %T does not decode: %v\n%s", msg, err, first)
	}
	if !reflect.DeepEqual(normalise(t, got), normalise(t, msg)) {
		t.Fatalf("re-encode changed the message:\nbefore %#v\nafter  %#v\nwire   %s", msg, got, first)
	}
	if second := roundTrip(t, got); !bytes.Equal(first, second) {
		t.Fatalf("encoding is not stable:\nfirst  %s\nsecond %s", first, second)
	}
}

// roundTrip is the framed bytes the stream writes for msg.
func roundTrip(t *testing.T, msg jsonrpc2.Message) []byte {
	t.Helper()
	conn := &rwBuffer{in: bytes.NewReader(nil)}
	if _, err := newStream(conn, quietLogger()).Write(context.Background(), msg); err != nil {
		t.Fatalf("encoding %#v: %v", msg, err)
	}
	return conn.out.Bytes()
}

// normalise compacts a message's raw JSON (params, result) so that
// insignificant whitespace in the input does not count as a change.
func normalise(t *testing.T, msg jsonrpc2.Message) jsonrpc2.Message {
	t.Helper()
	compact := func(raw jsonrpc2.RawMessage) jsonrpc2.RawMessage {
		if raw == nil {
			return nil
		}
		var b bytes.Buffer
		if err := json.Compact(&b, raw); err != nil {
			t.Fatalf("raw JSON in a decoded message is invalid: %v: %q", err, raw)
		}
		return b.Bytes()
	}
	switch m := msg.(type) {
	case *jsonrpc2.Call:
		return jsonrpc2.NewCall(m.ID(), m.Method(), compact(m.Params()))
	case *jsonrpc2.Notification:
		return jsonrpc2.NewNotification(m.Method(), compact(m.Params()))
	case *jsonrpc2.Response:
		return jsonrpc2.NewResponse(m.ID(), compact(m.Result()), m.Err())
	}
	t.Fatalf("unknown message type %T", msg)
	return nil
}
