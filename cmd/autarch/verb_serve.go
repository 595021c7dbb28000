package main

import (
	"context"
	"flag"
	"fmt"
	"github.com/autarch-dev/autarch/app"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/autarch-dev/autarch/agent/workflow"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/server"
	"github.com/autarch-dev/autarch/tools"
)

func serveVerb() verb {
	return verb{
		name:    "serve",
		usage:   "autarch serve [--log FILE] [--log-level debug|info|warn|error]",
		summary: "speak LSP JSON-RPC on stdin/stdout (what editors start)",
		run:     runServe,
	}
}

func runServe(ctx context.Context, io stdio, args []string) int {
	fs := newFlagSet("serve", io)
	logs := addLogFlags(fs, defaultLogPath())
	if code, ok := parseFlagsOnly(io, fs, "serve", args, "serve takes only flags"); !ok {
		return code
	}
	logger, closeLog, err := logs.open(io.err)
	if err != nil {
		return fail(io, "serve", 2, err)
	}
	defer closeLog()
	srv := newServer(logger, logs.path)
	logger.Info("serving on stdio", "version", version, "pid", os.Getpid())
	return srv.Serve(ctx, stdioConn{r: io.in, w: io.out})
}

// newServer wires a server: the model follows the editor's settings; each
// session's engine is wired like the verbs' (engine.go) with the flags'
// defaults, and its code search uses the embedder picked here.
func newServer(logger *slog.Logger, logPath string) *server.Server {
	model := &liveModel{stream: true}
	defaults := addEngineFlags(flag.NewFlagSet("serve", flag.ContinueOnError))
	defaults.model = "" // the editor's settings name the model
	defaults.live = &liveServers{}
	return server.New(server.Config{Version: version, LogFile: logPath, Logger: logger, Settings: model.set, Project: defaults.live.projectState,
		Session: func(p server.SessionParams) *app.Session {
			warn := func(msg string) {
				if err := p.Editor.ShowMessage(context.Background(), editor.Warning, "Autarch: "+msg); err != nil {
					logger.Debug("message not delivered", "err", err)
				}
			}
			return app.New(app.Config{Editor: p.Editor, Document: p.Document, Diagnostics: p.Diagnostics, Events: p.Events, Log: logger,
				Wire:   defaults.wire(model, warn),
				Search: func(folder string) workflow.CodeSearch { return newCodeSearch(folder, p.Editor, false, logger) }})
		}})
}

// stdioConn joins stdin and stdout into one connection.
type stdioConn struct {
	r io.Reader
	w io.Writer
}

func (c stdioConn) Read(p []byte) (int, error)  { return c.r.Read(p) }
func (c stdioConn) Write(p []byte) (int, error) { return c.w.Write(p) }
func (c stdioConn) Close() error {
	if cl, ok := c.r.(io.Closer); ok {
		cl.Close()
	}
	if cl, ok := c.w.(io.Closer); ok {
		return cl.Close()
	}
	return nil
}

// defaultLogPath is <user cache dir>/autarch/logs/serve.log.
func defaultLogPath() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "autarch", "logs", "serve.log")
}

// newLogger logs to stderr and, when path is set, appends to that file too.
func newLogger(stderr io.Writer, path string, lvl slog.Level) (*slog.Logger, func()) {
	opts := &slog.HandlerOptions{Level: lvl}
	handlers := []slog.Handler{slog.NewTextHandler(stderr, opts)}
	closeFn := func() {}
	if path != "" {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err == nil {
			if f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644); err == nil {
				handlers = append(handlers, slog.NewJSONHandler(f, opts))
				closeFn = func() { f.Close() }
			} else {
				fmt.Fprintf(stderr, "autarch: cannot open log file: %v\n", err)
			}
		}
	}
	return slog.New(tools.RedactHandler(slog.NewMultiHandler(handlers...), rootEgress(""))), closeFn
}

// logFlags are --log and --log-level of the verbs that serve a client
// (serve, acp).
type logFlags struct {
	path, level string
}

func addLogFlags(fs *flag.FlagSet, defaultPath string) *logFlags {
	l := &logFlags{}
	fs.StringVar(&l.path, "log", defaultPath, "log file (appended; \"\" for stderr only)")
	fs.StringVar(&l.level, "log-level", envOr("AUTARCH_LOG_LEVEL", "info"), "log level: debug, info, warn or error")
	return l
}

// open makes the logger the flags name (see newLogger); closeLog closes
// its file.
func (l *logFlags) open(stderr io.Writer) (logger *slog.Logger, closeLog func(), err error) {
	lvl, err := parseLevel(l.level)
	if err != nil {
		return nil, nil, err
	}
	logger, closeLog = newLogger(stderr, l.path, lvl)
	return logger, closeLog, nil
}

func parseLevel(s string) (slog.Level, error) {
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(strings.ToLower(s))); err != nil {
		return 0, fmt.Errorf("bad log level %q: use debug, info, warn or error", s)
	}
	return lvl, nil
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
