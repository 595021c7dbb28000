// Command autarch-scripted serves a scripted OpenAI-compatible model (see
// package agent/scripted) so that end-to-end tests of editors can point
// Autarch at it: autarch-scripted --script FILE.txt [--addr 127.0.0.1:0]
// [--faults pass,pass,cut]. It prints the base URL on stdout and logs
// mismatches on stderr; it exits 1 at SIGTERM/SIGINT if any request did not
// match the script. --faults puts a flaky proxy in front of the model: the
// i-th chat completion gets the pattern's i-th fault, cyclically (pass,
// cut, drop, reset, 400, 500, 429, slow), to see how Autarch rides out a
// real network.
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/autarch-dev/autarch/agent/scripted"
)

func main() {
	os.Exit(run())
}

func run() int {
	script := flag.String("script", "", "txtar script of model steps")
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	faults := flag.String("faults", "", "comma-separated faults applied to chat completions in turn: pass, cut, drop, reset, 400, 500, 429, slow")
	retryAfter := flag.Duration("retry-after", time.Second, "the Retry-After of the 429 fault")
	flag.Parse()
	if *script == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: autarch-scripted --script FILE.txt [--addr HOST:PORT] [--faults pass,cut,…] [--retry-after 1s]")
		return 2
	}
	var pattern []scripted.Fault
	if *faults != "" {
		var err error
		if pattern, err = scripted.ParseFaults(*faults); err != nil {
			fmt.Fprintf(os.Stderr, "autarch-scripted: --faults: %v\n", err)
			return 2
		}
	}
	s, err := scripted.Load(*script)
	if err != nil {
		fmt.Fprintf(os.Stderr, "autarch-scripted: %v\n", err)
		return 2
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "autarch-scripted: %v\n", err)
		return 1
	}
	srv := scripted.NewServer(s)
	fmt.Printf("http://%s/v1\n", ln.Addr())
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var handler http.Handler = srv
	if len(pattern) > 0 {
		handler = &scripted.Flaky{Next: srv, Pattern: pattern, RetryAfter: *retryAfter}
	}
	hs := &http.Server{Handler: handler}
	go hs.Serve(ln)
	<-ctx.Done()
	hs.Close()
	errs := srv.Errors()
	for _, e := range errs {
		fmt.Fprintf(os.Stderr, "autarch-scripted: %s\n", e)
	}
	if n := srv.Remaining(); n > 0 {
		fmt.Fprintf(os.Stderr, "autarch-scripted: %d step(s) were never requested\n", n)
	}
	if len(errs) > 0 {
		return 1
	}
	return 0
}
