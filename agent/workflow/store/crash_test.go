package store

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

const (
	crashEnv   = "AUTARCH_STORE_CRASH_DB"
	batchSize  = 10
	crashRound = 3
)

// TestCrashChild is the process TestCrashLeavesWholeTransactions kills. It
// writes batches forever, each one transaction of batchSize messages, a
// usage row and a rejection count, with pauses inside the transaction, and
// prints "committed N" after each commit.
func TestCrashChild(t *testing.T) {
	path := os.Getenv(crashEnv)
	if path == "" {
		t.Skip("only runs as the child of TestCrashLeavesWholeTransactions")
	}
	ctx := context.Background()
	s, err := Open(ctx, path, Options{})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	w := Workflow{Name: "crash", Stage: "pulsing"}
	p := Pulse{PlannedID: "p1"}
	err = s.Update(ctx, func(tx *Tx) error {
		if err := tx.CreateWorkflow(ctx, &w); err != nil {
			return err
		}
		p.WorkflowID = w.ID
		return tx.AddPulse(ctx, &p)
	})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	fmt.Println("ready", w.ID, p.ID)
	for batch := 0; ; batch++ {
		err := s.Update(ctx, func(tx *Tx) error {
			for i := range batchSize {
				m := Message{WorkflowID: w.ID, Stage: "pulsing", PulseID: "p1", Role: "assistant",
					Content: fmt.Sprintf("batch %d message %d %s", batch, i, strings.Repeat("x", rand.IntN(2000)))}
				if err := tx.AddMessage(ctx, &m); err != nil {
					return err
				}
				if rand.IntN(3) == 0 {
					time.Sleep(time.Duration(rand.IntN(300)) * time.Microsecond)
				}
			}
			if err := tx.AddUsage(ctx, &Usage{WorkflowID: w.ID, Stage: "pulsing", PulseID: "p1", PromptTokens: int64(batch), CompletionTokens: 1}); err != nil {
				return err
			}
			_, err := tx.AddRejection(ctx, p.ID)
			return err
		})
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Println("committed", batch)
	}
}

// TestCrashLeavesWholeTransactions kills (SIGKILL) a writing process at
// random points and checks that the database opens intact, holds every
// transaction the child reported committed, and no part of any other.
func TestCrashLeavesWholeTransactions(t *testing.T) {
	if os.Getenv(crashEnv) != "" {
		t.Skip("child")
	}
	for round := range crashRound {
		t.Run(strconv.Itoa(round), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), FileName)
			cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$")
			cmd.Env = append(os.Environ(), crashEnv+"="+path)
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			cmd.Stderr = os.Stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			killAfter := 3 + rand.IntN(25)
			lastAcked := -1
			var pulseID string
			killed := false
			sc := bufio.NewScanner(out)
			// Every line the child wrote is read, to its end: under load the
			// child commits (and acknowledges) batches past killAfter before
			// the kill lands, and those are acknowledged too.
			for sc.Scan() {
				f := strings.Fields(sc.Text())
				switch {
				case len(f) == 3 && f[0] == "ready":
					pulseID = f[2]
				case len(f) == 2 && f[0] == "committed":
					lastAcked, _ = strconv.Atoi(f[1])
				case len(f) > 0 && f[0] == "error":
					t.Fatalf("child: %s", sc.Text())
				}
				if !killed && lastAcked >= killAfter {
					// Let it get into the next transaction, then kill.
					time.Sleep(time.Duration(rand.IntN(2000)) * time.Microsecond)
					cmd.Process.Kill()
					killed = true
				}
			}
			cmd.Wait()
			if pulseID == "" || lastAcked < killAfter {
				t.Fatalf("child ended early (acked %d)", lastAcked)
			}

			ctx := context.Background()
			s, err := Open(ctx, path, Options{})
			if err != nil {
				t.Fatalf("reopen after kill: %v", err)
			}
			defer s.Close()
			var check string
			if err := s.db.QueryRowContext(ctx, `PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
				t.Fatalf("integrity_check = %q, %v", check, err)
			}
			counts := map[int]int{}
			rows, err := s.db.QueryContext(ctx, `SELECT content FROM messages`)
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var c string
				rows.Scan(&c)
				var b, i int
				fmt.Sscanf(c, "batch %d message %d", &b, &i)
				counts[b]++
			}
			rows.Close()
			for b, n := range counts {
				if n != batchSize {
					t.Fatalf("batch %d has %d of %d messages: a transaction was torn", b, n, batchSize)
				}
			}
			batches := len(counts)
			for b := 0; b <= lastAcked; b++ {
				if counts[b] != batchSize {
					t.Fatalf("acknowledged batch %d lost (last acked %d)", b, lastAcked)
				}
			}
			if batches > lastAcked+2 {
				t.Fatalf("%d batches but only %d acknowledged", batches, lastAcked+1)
			}
			p, err := s.Pulse(ctx, pulseID)
			if err != nil {
				t.Fatal(err)
			}
			var usage int
			s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM usage`).Scan(&usage)
			if p.RejectionCount != batches || usage != batches {
				t.Fatalf("batches %d, rejections %d, usage rows %d: tables disagree", batches, p.RejectionCount, usage)
			}
			t.Logf("killed after %d acknowledged batches; %d on disk", lastAcked+1, batches)
		})
	}
}

// TestConcurrentWriters: goroutines writing at once through one Store and
// through a second Store on the same file (as a second process would) all
// land, with counters exact.
func TestConcurrentWriters(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), FileName)
	a := openAt(t, path)
	b := openAt(t, path)
	w := newWorkflow(t, a, "busy")
	p := Pulse{WorkflowID: w.ID, PlannedID: "p1"}
	if err := a.AddPulse(ctx, &p); err != nil {
		t.Fatal(err)
	}
	const writers, each = 8, 25
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for g := range writers {
		s := a
		if g%2 == 1 {
			s = b
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				err := s.Update(ctx, func(tx *Tx) error {
					if err := tx.AddMessage(ctx, &Message{WorkflowID: w.ID, Stage: "pulsing", PulseID: "p1", Role: "user", Content: fmt.Sprint(g, i)}); err != nil {
						return err
					}
					_, err := tx.AddRejection(ctx, p.ID)
					return err
				})
				if err != nil {
					errs <- err
				}
				if err := s.AddUsage(ctx, &Usage{WorkflowID: w.ID, Stage: "pulsing", PulseID: "p1", PromptTokens: 1, CompletionTokens: 2, Cost: 0.5}); err != nil {
					errs <- err
				}
				if _, err := s.Messages(ctx, w.ID, "pulsing", "p1"); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	msgs, _ := a.Messages(ctx, w.ID, "pulsing", "p1")
	got, _ := b.Pulse(ctx, p.ID)
	total, _ := a.WorkflowUsage(ctx, w.ID)
	if len(msgs) != writers*each || got.RejectionCount != writers*each || total.Calls != writers*each || total.CompletionTokens != 2*writers*each {
		t.Fatalf("messages %d, rejections %d, usage %+v; want %d each", len(msgs), got.RejectionCount, total, writers*each)
	}
}
