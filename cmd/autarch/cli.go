package main

import (
	"flag"
	"fmt"
	"io"
	"text/tabwriter"
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

// parseFlagsOnly parses the args of a verb that takes only flags (see
// parseFlags); an operand is refused, with why when it is not "".
func parseFlagsOnly(io stdio, fs *flag.FlagSet, name string, args []string, why string) (code int, ok bool) {
	if code, ok := parseFlags(fs, args); !ok {
		return code, false
	}
	if fs.NArg() > 0 {
		if why != "" {
			why = " (" + why + ")"
		}
		fmt.Fprintf(io.err, "autarch %s: unexpected argument %q%s\n", name, fs.Arg(0), why)
		return 2, false
	}
	return 0, true
}

// newTable starts a table on w with its header row (columns separated by
// tabs), as every listing verb prints them; Flush writes it out.
func newTable(w io.Writer, header string) *tabwriter.Writer {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, header)
	return tw
}

// printListing prints a listing verb's items: as JSON with asJSON, else
// none when there are none, else a table of header and one row per item
// (its cells separated by tabs).
func printListing[T any](io stdio, items []T, asJSON bool, none, header string, row func(item T) string) int {
	if asJSON {
		return printJSON(io, items)
	}
	if len(items) == 0 {
		fmt.Fprintln(io.out, none)
		return 0
	}
	tw := newTable(io.out, header)
	for _, item := range items {
		fmt.Fprintln(tw, row(item))
	}
	tw.Flush()
	return 0
}
