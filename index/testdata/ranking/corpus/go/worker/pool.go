// Package worker runs jobs on a fixed number of goroutines.
package worker

import (
	"context"
	"sync"
)

// Job is one unit of work.
type Job func(ctx context.Context) error

// Pool runs jobs concurrently with at most n workers and collects errors.
func Pool(ctx context.Context, n int, jobs []Job) []error {
	errs := make([]error, len(jobs))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < n; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				errs[i] = jobs[i](ctx)
			}
		}()
	}
	for i := range jobs {
		select {
		case next <- i:
		case <-ctx.Done():
			errs[i] = ctx.Err()
		}
	}
	close(next)
	wg.Wait()
	return errs
}
