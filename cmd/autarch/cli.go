package main

import (
	"flag"
	"fmt"
)

// fail says on stderr what stopped a verb ("autarch NAME: err", NAME as
// in "fleet budget") and returns code, the verb's exit code.
func fail(io stdio, name string, code int, err error) int {
	fmt.Fprintf(io.err, "autarch %s: %v\n", name, err)
	return code
}

// usageError prints v's usage line on stderr and returns 2, the exit code
// of a usage error.
func usageError(io stdio, v verb) int {
	fmt.Fprintln(io.err, "usage: "+v.usage)
	return 2
}

// parseOperands parses args like parseFlags and then checks that v was
// given from min to max operands (max < 0: no upper bound), printing its
// usage when not; when ok is false the verb must return code.
func parseOperands(io stdio, fs *flag.FlagSet, v verb, args []string, min, max int) (code int, ok bool) {
	if code, ok := parseFlags(fs, args); !ok {
		return code, false
	}
	if n := fs.NArg(); n < min || max >= 0 && n > max {
		return usageError(io, v), false
	}
	return 0, true
}
