package tools

import (
	"context"
	"fmt"
	"log/slog"
)

// RedactHandler wraps a log handler so that every record passes e: the
// message and every string attribute (in groups too; errors, Stringers
// and other values by their text) are filtered before h sees them. A nil
// e leaves h as it is.
func RedactHandler(h slog.Handler, e *Egress) slog.Handler {
	if e == nil {
		return h
	}
	return &redactHandler{inner: h, egress: e}
}

type redactHandler struct {
	inner  slog.Handler
	egress *Egress
}

func (h *redactHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.inner.Enabled(ctx, l)
}

func (h *redactHandler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, h.egress.Text(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.attr(a))
		return true
	})
	return h.inner.Handle(ctx, out)
}

func (h *redactHandler) WithAttrs(as []slog.Attr) slog.Handler {
	clean := make([]slog.Attr, len(as))
	for i, a := range as {
		clean[i] = h.attr(a)
	}
	return &redactHandler{inner: h.inner.WithAttrs(clean), egress: h.egress}
}

func (h *redactHandler) WithGroup(name string) slog.Handler {
	return &redactHandler{inner: h.inner.WithGroup(name), egress: h.egress}
}

// attr filters one attribute's value.
func (h *redactHandler) attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, h.egress.Auto(v.String()))
	case slog.KindGroup:
		g := v.Group()
		clean := make([]any, len(g))
		for i, x := range g {
			clean[i] = h.attr(x)
		}
		return slog.Group(a.Key, clean...)
	case slog.KindAny:
		var s string
		switch x := v.Any().(type) {
		case nil:
			return a
		case error:
			s = x.Error()
		case fmt.Stringer:
			s = x.String()
		case []byte:
			s = string(x)
		default:
			s = fmt.Sprint(x)
		}
		if f := h.egress.Auto(s); f != s {
			return slog.String(a.Key, f)
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}
