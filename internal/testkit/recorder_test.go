package testkit

import (
	"fmt"
	"runtime"
	"testing"
)

// fatalRecorder is a testing.TB for checking the kit's assertions: Fatal
// and Fatalf record the failure and end the goroutine, as the testing
// package's do; Errorf records it and returns.
type fatalRecorder struct {
	testing.TB
	failed string
}

func (r *fatalRecorder) Helper()      {}
func (r *fatalRecorder) Name() string { return "TestRecorded" }
func (r *fatalRecorder) Fatal(args ...any) {
	r.failed = fmt.Sprint(args...)
	runtime.Goexit()
}
func (r *fatalRecorder) Fatalf(format string, args ...any) {
	r.failed = fmt.Sprintf(format, args...)
	runtime.Goexit()
}
func (r *fatalRecorder) Errorf(format string, args ...any) {
	r.failed = fmt.Sprintf(format, args...)
}

// run calls check in a goroutine of its own (which Fatal ends) and
// returns the failure it recorded ("" for none).
func (r *fatalRecorder) run(check func()) string {
	done := make(chan struct{})
	go func() {
		defer close(done)
		check()
	}()
	<-done
	return r.failed
}
