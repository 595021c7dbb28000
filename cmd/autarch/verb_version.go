package main

import (
	"context"
	"flag"
	"fmt"
	"runtime"
)

func versionVerb() verb {
	return verb{
		name:    "version",
		usage:   "autarch version",
		summary: "print the version",
		run: func(ctx context.Context, io stdio, args []string) int {
			fs := newFlagSet("version", io)
			if code, ok := parseFlags(fs, args); !ok {
				return code
			}
			fmt.Fprintf(io.out, "autarch %s (%s, %s/%s)\n", version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return 0
		},
	}
}

// newFlagSet makes a flag set that reports errors on io.err and does not exit.
func newFlagSet(name string, io stdio) *flag.FlagSet {
	fs := flag.NewFlagSet("autarch "+name, flag.ContinueOnError)
	fs.SetOutput(io.err)
	return fs
}

// parseFlags parses args; when it returns ok=false the verb must return code
// (0 after -h, 2 on a usage error, with the usage already printed).
func parseFlags(fs *flag.FlagSet, args []string) (code int, ok bool) {
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0, false
		}
		return 2, false
	}
	return 0, true
}
