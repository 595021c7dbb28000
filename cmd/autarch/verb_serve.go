package main

import (
	"context"
)

func serveVerb() verb {
	return verb{
		name:    "serve",
		usage:   "autarch serve [--log FILE]",
		summary: "speak LSP JSON-RPC on stdin/stdout (what editors start)",
		run: func(ctx context.Context, io stdio, args []string) int {
			fs := newFlagSet("serve", io)
			if code, ok := parseFlags(fs, args); !ok {
				return code
			}
			return 0
		},
	}
}
