// Command autarch is the Autarch server and CLI: serve (LSP over stdio),
// and headless verbs for tools, indexing, search, workflows and review.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

// stdio is the terminal a verb talks to.
type stdio struct {
	in       io.Reader
	out, err io.Writer
}

// verb is one CLI verb. run returns the process exit code: 0 success,
// 1 failure, 2 usage error.
type verb struct {
	name    string
	usage   string // e.g. "autarch index [--root DIR]"
	summary string
	run     func(ctx context.Context, io stdio, args []string) int
}

// verbs lists every verb, in the order --help shows them.
// Each verb lives in its own file, verb_<name>.go.
func verbs() []verb {
	return []verb{
		serveVerb(),
		toolsVerb(),
		mcpVerb(),
		toolVerb(),
		agentVerb(),
		indexVerb(),
		searchVerb(),
		runVerb(),
		jobVerb(),
		swarmVerb(),
		workerVerb(),
		submitVerb(),
		fleetVerb(),
		acpVerb(),
		statusVerb(),
		resumeVerb(),
		stopVerb(),
		revertVerb(),
		redoVerb(),
		reviewVerb(),
		receiptVerb(),
		trustVerb(),
		doctorVerb(),
		versionVerb(),
	}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	stopProfile := startCPUProfile(os.Stderr)
	code := runMain(ctx, stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr}, os.Args[1:])
	stopProfile()
	stop()
	os.Exit(code)
}

// runMain dispatches to a verb and returns the exit code.
func runMain(ctx context.Context, io stdio, args []string) int {
	if len(args) == 0 {
		printHelp(io.err)
		return 2
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		printHelp(io.out)
		return 0
	case "-version", "--version":
		args = []string{"version"}
	}
	for _, v := range verbs() {
		if v.name == args[0] {
			return v.run(ctx, io, args[1:])
		}
	}
	if strings.HasPrefix(args[0], "-") {
		fmt.Fprintf(io.err, "autarch: unknown flag %q\n", args[0])
	} else {
		fmt.Fprintf(io.err, "autarch: unknown verb %q\n", args[0])
	}
	fmt.Fprintln(io.err, usageLine())
	return 2
}

func usageLine() string {
	var names []string
	for _, v := range verbs() {
		names = append(names, v.name)
	}
	return "usage: autarch <" + strings.Join(names, "|") + "> [flags] (autarch --help for more)"
}

func printHelp(w io.Writer) {
	fmt.Fprintln(w, "Autarch: an AI coding agent for your editor and terminal.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Verbs:")
	for _, v := range verbs() {
		fmt.Fprintf(w, "  %-10s %s\n", v.name, v.summary)
		fmt.Fprintf(w, "  %-10s   %s\n", "", v.usage)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'autarch <verb> --help' for a verb's flags.")
}
