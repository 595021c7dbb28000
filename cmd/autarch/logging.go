package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"sync"

	"github.com/autarch-dev/autarch/tools"
)

// rootEgress is the egress gate over the workspace at root (its secret
// files, the repository's NATS credentials) and the process environment.
func rootEgress(root string) *tools.Egress {
	if root == "" {
		root, _ = os.Getwd()
	}
	return tools.NewEgress(context.Background(), nil, tools.DefaultEgressSources(root, ""))
}

// warnLog is a warn-level text logger on w whose lines pass the egress
// gate of the workspace at root: no log line carries a secret value. The
// gate (a walk of the workspace for its secret files) is made when the
// first line is written: most commands write none.
func warnLog(w io.Writer, root string) *slog.Logger {
	inner := slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelWarn})
	return slog.New(&lazyHandler{level: slog.LevelWarn, get: sync.OnceValue(func() slog.Handler {
		return tools.RedactHandler(inner, rootEgress(root))
	})})
}

// lazyHandler is a handler made on first use.
type lazyHandler struct {
	level slog.Level
	get   func() slog.Handler
}

func (h *lazyHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.level }

func (h *lazyHandler) Handle(ctx context.Context, r slog.Record) error {
	return h.get().Handle(ctx, r)
}

func (h *lazyHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	get := h.get
	return &lazyHandler{level: h.level, get: sync.OnceValue(func() slog.Handler { return get().WithAttrs(attrs) })}
}

func (h *lazyHandler) WithGroup(name string) slog.Handler {
	get := h.get
	return &lazyHandler{level: h.level, get: sync.OnceValue(func() slog.Handler { return get().WithGroup(name) })}
}
