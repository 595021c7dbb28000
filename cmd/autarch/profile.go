package main

import (
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"runtime/trace"
)

// cpuProfileEnv names a file to which the whole process writes a CPU
// profile (go tool pprof), for measuring a verb as a user runs it: a new,
// cold process (make bench-grep).
const cpuProfileEnv = "AUTARCH_CPUPROFILE"

// traceEnv names a file to which the whole process writes an execution
// trace (go tool trace): where a cold process's wall time goes, goroutine
// by goroutine (walk, reads, GC, start-up, the final write).
const traceEnv = "AUTARCH_TRACE"

// startCPUProfile starts the CPU profile cpuProfileEnv asks for and the
// trace traceEnv asks for, if any, and returns what stops them. One that
// cannot start is reported on errOut and the verb runs without it.
func startCPUProfile(errOut io.Writer) (stop func()) {
	stopTrace := recordTo(errOut, traceEnv, "a trace", trace.Start, trace.Stop)
	stopProfile := recordTo(errOut, cpuProfileEnv, "a CPU profile", pprof.StartCPUProfile, pprof.StopCPUProfile)
	return func() {
		stopProfile()
		stopTrace()
	}
}

// recordTo starts a recording (start, ended by end) into the file the
// environment variable env names, if any, and returns what ends it and
// closes the file; what names the recording in messages.
func recordTo(errOut io.Writer, env, what string, start func(io.Writer) error, end func()) (stop func()) {
	path := os.Getenv(env)
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintf(errOut, "autarch: %s: %v; running without %s\n", env, err, what)
		return func() {}
	}
	if err := start(f); err != nil {
		f.Close()
		fmt.Fprintf(errOut, "autarch: %s: %v; running without %s\n", env, err, what)
		return func() {}
	}
	return func() {
		end()
		if err := f.Close(); err != nil {
			fmt.Fprintf(errOut, "autarch: %s: %v\n", env, err)
		}
	}
}
