package server

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"sync"

	"go.lsp.dev/jsonrpc2"
)

// maxFrame bounds one message body; a larger Content-Length is treated as a
// corrupt header and skipped.
const maxFrame = 256 << 20

// stream is the LSP base-protocol framing (Content-Length headers) with
// recovery: garbage between frames is skipped until the next header, and a
// frame whose body is not valid JSON-RPC is answered with a parse error
// instead of ending the connection. Only a closed or truncated input ends it.
type stream struct {
	in  *bufio.Reader
	out io.Writer
	c   io.Closer
	log *slog.Logger

	wmu  sync.Mutex
	wbuf []byte
}

// newStream frames rwc. Reads happen on one goroutine (the connection's read
// loop); writes may come from many.
func newStream(rwc io.ReadWriteCloser, log *slog.Logger) *stream {
	return &stream{in: bufio.NewReaderSize(rwc, 64<<10), out: rwc, c: rwc, log: log}
}

// Read returns the next well-formed message.
func (s *stream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		body, n, err := readFrame(s.in, s.log)
		if err != nil {
			return nil, 0, err
		}
		msg, err := jsonrpc2.DecodeMessage(body)
		if err == nil {
			return msg, n, nil
		}
		s.log.Warn("malformed message", "err", err, "bytes", len(body))
		perr := jsonrpc2.NewError(jsonrpc2.ParseError, "parse error: "+err.Error())
		if _, werr := s.Write(ctx, jsonrpc2.NewResponse(jsonrpc2.ID{}, nil, perr)); werr != nil {
			return nil, 0, werr
		}
	}
}

// Write sends one message as a single framed write.
func (s *stream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	body, err := jsonrpc2.EncodeMessage(msg)
	if err != nil {
		return 0, fmt.Errorf("encoding message: %w", err)
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.wbuf = append(s.wbuf[:0], "Content-Length: "...)
	s.wbuf = strconv.AppendInt(s.wbuf, int64(len(body)), 10)
	s.wbuf = append(s.wbuf, "\r\n\r\n"...)
	s.wbuf = append(s.wbuf, body...)
	n, err := s.out.Write(s.wbuf)
	return int64(n), err
}

// Close closes the underlying connection.
func (s *stream) Close() error { return s.c.Close() }

var contentLength = []byte("content-length:")

// readFrame reads one header block and its body. Lines that are not headers
// are skipped (with a log line) until a Content-Length header starts a frame;
// a header embedded after garbage on the same line is found too.
func readFrame(r *bufio.Reader, log *slog.Logger) ([]byte, int64, error) {
	var consumed int64
	length := -1
	skipped := 0
	for {
		line, err := r.ReadSlice('\n')
		consumed += int64(len(line))
		if err == bufio.ErrBufferFull {
			// A very long line cannot be a header: discard it.
			skipped += len(line)
			for err == bufio.ErrBufferFull {
				line, err = r.ReadSlice('\n')
				skipped += len(line)
				consumed += int64(len(line))
			}
			if err != nil {
				return nil, 0, eofOrUnexpected(err, consumed)
			}
			continue
		}
		if err != nil {
			return nil, 0, eofOrUnexpected(err, consumed)
		}
		trimmed := bytes.TrimRight(line, "\r\n")
		if len(trimmed) == 0 {
			if length >= 0 {
				break
			}
			continue // blank line outside a header block
		}
		if n, ok := parseLengthHeader(trimmed); ok {
			length = n
			continue
		}
		if length >= 0 && isHeaderField(trimmed) {
			continue // e.g. Content-Type
		}
		skipped += len(line)
		length = -1
	}
	if skipped > 0 {
		log.Warn("skipped bytes that were not an LSP frame", "bytes", skipped)
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, 0, io.ErrUnexpectedEOF
	}
	return body, consumed + int64(length), nil
}

// parseLengthHeader finds "Content-Length: N" anywhere in the line
// (ASCII case-insensitive), so a header glued to preceding garbage still
// frames.
func parseLengthHeader(line []byte) (int, bool) {
	i := indexASCIIFold(line, contentLength)
	if i < 0 {
		return 0, false
	}
	v := bytes.TrimSpace(line[i+len(contentLength):])
	n, err := strconv.Atoi(string(v))
	if err != nil || n <= 0 || n > maxFrame {
		return 0, false
	}
	return n, true
}

// indexASCIIFold is the offset of the first match of the lower-case ASCII
// pattern lower in s, ignoring ASCII case, or -1. Unlike searching
// bytes.ToLower(s), offsets stay those of s whatever bytes it holds
// (ToLower turns an invalid UTF-8 byte into three).
func indexASCIIFold(s, lower []byte) int {
	for i := 0; i+len(lower) <= len(s); i++ {
		match := true
		for j, c := range lower {
			b := s[i+j]
			if 'A' <= b && b <= 'Z' {
				b += 'a' - 'A'
			}
			if b != c {
				match = false
				break
			}
		}
		if match {
			return i
		}
	}
	return -1
}

func isHeaderField(line []byte) bool {
	i := bytes.IndexByte(line, ':')
	if i <= 0 {
		return false
	}
	for _, c := range line[:i] {
		if !(c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func eofOrUnexpected(err error, consumed int64) error {
	if err == io.EOF && consumed > 0 {
		return io.ErrUnexpectedEOF
	}
	return err
}
