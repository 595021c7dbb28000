// Package httpx wraps net/http with retries.
package httpx

import (
	"context"
	"math/rand"
	"net/http"
	"time"
)

// RetryPolicy decides how often and how long to wait between attempts.
type RetryPolicy struct {
	MaxAttempts int
	BaseDelay   time.Duration
	MaxDelay    time.Duration
}

// backoff is the exponential delay before attempt n, with full jitter.
func (p RetryPolicy) backoff(n int) time.Duration {
	d := p.BaseDelay << n
	if d > p.MaxDelay || d <= 0 {
		d = p.MaxDelay
	}
	return time.Duration(rand.Int63n(int64(d) + 1))
}

// retryable reports whether a response status is worth another attempt.
func retryable(status int) bool {
	return status == http.StatusTooManyRequests || status >= 500
}

// Do sends req until it succeeds, the policy gives up or ctx ends.
func Do(ctx context.Context, c *http.Client, req *http.Request, p RetryPolicy) (*http.Response, error) {
	var lastErr error
	for attempt := 0; attempt < p.MaxAttempts; attempt++ {
		resp, err := c.Do(req.WithContext(ctx))
		if err == nil && !retryable(resp.StatusCode) {
			return resp, nil
		}
		if err == nil {
			resp.Body.Close()
		}
		lastErr = err
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(p.backoff(attempt)):
		}
	}
	return nil, lastErr
}
