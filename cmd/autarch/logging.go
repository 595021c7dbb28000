package main

import (
	"context"
	"io"
	"log/slog"
	"os"

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
// gate of the workspace at root: no log line carries a secret value.
func warnLog(w io.Writer, root string) *slog.Logger {
	return slog.New(tools.RedactHandler(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelWarn}), rootEgress(root)))
}
