package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// One-shot garbage collection: a tool call from the CLI (autarch tool) is
// a process that lives for one search or one edit and frees everything at
// exit. At the default GOGC its collector ran about seven times in a grep
// over $(go env GOROOT)/src, a tenth of the process's CPU, for a heap of
// a few tens of MiB; with GOGC 400 the same grep takes about 12% less
// CPU (GOGC off takes more: every allocation is a fresh page to fault
// in). A call that holds much (a large index) must not grow five-fold,
// so the default comes back once the live heap passes shortGCMaxLive.
const (
	shortGCPercent = 400
	shortGCMaxLive = 64 << 20
)

// shortProcessGC sets the one-shot collection for this process, unless
// the user set GOGC. It returns what undoes it (for tests).
func shortProcessGC() (undo func()) {
	if _, set := os.LookupEnv("GOGC"); set {
		return func() {}
	}
	old := debug.SetGCPercent(shortGCPercent)
	done := make(chan struct{})
	watchLiveHeap(shortGCMaxLive, done, func() { debug.SetGCPercent(old) })
	return func() {
		close(done)
		debug.SetGCPercent(old)
	}
}

// watchLiveHeap calls back once, after a collection that leaves more
// than max bytes live, unless done is closed first. A finalizer runs
// after each collection that finds its object unreachable; each one arms
// the next.
func watchLiveHeap(max uint64, done <-chan struct{}, back func()) {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	var arm func()
	arm = func() {
		runtime.SetFinalizer(new([32]byte), func(*[32]byte) {
			select {
			case <-done:
				return
			default:
			}
			metrics.Read(sample)
			if sample[0].Value.Kind() == metrics.KindUint64 && sample[0].Value.Uint64() > max {
				back()
				return
			}
			arm()
		})
	}
	arm()
}
