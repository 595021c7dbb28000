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

// startCPUProfile starts the CPU profile cpuProfileEnv asks for, if any,
// and returns what stops it. A profile that cannot start is reported on
// errOut and the verb runs without it.
func startCPUProfile(errOut io.Writer) (stop func()) {
	stopTrace := startTrace(errOut)
	stopProfile := startProfile(errOut)
	return func() {
		stopProfile()
		stopTrace()
	}
}

// startProfile starts the CPU profile cpuProfileEnv asks for.
func startProfile(errOut io.Writer) (stop func()) {
	path := os.Getenv(cpuProfileEnv)
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintf(errOut, "autarch: %s: %v; running without a CPU profile\n", cpuProfileEnv, err)
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		fmt.Fprintf(errOut, "autarch: %s: %v; running without a CPU profile\n", cpuProfileEnv, err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			fmt.Fprintf(errOut, "autarch: %s: %v\n", cpuProfileEnv, err)
		}
	}
}

// startTrace starts the execution trace traceEnv asks for, if any, and
// returns what stops it.
func startTrace(errOut io.Writer) (stop func()) {
	path := os.Getenv(traceEnv)
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintf(errOut, "autarch: %s: %v; running without a trace\n", traceEnv, err)
		return func() {}
	}
	if err := trace.Start(f); err != nil {
		f.Close()
		fmt.Fprintf(errOut, "autarch: %s: %v; running without a trace\n", traceEnv, err)
		return func() {}
	}
	return func() {
		trace.Stop()
		if err := f.Close(); err != nil {
			fmt.Fprintf(errOut, "autarch: %s: %v\n", traceEnv, err)
		}
	}
}
