package openai

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/agent/scripted"
)

// Errors that retrying cannot fix end the call at once, naming the
// endpoint and what to set (issue 31.8); a server that answered before
// and now refuses is retried (it may be restarting).
func TestUnfixableErrorsFailFast(t *testing.T) {
	slow := func(url, key string) Config {
		return Config{BaseURL: url, APIKey: key, MaxRetries: 5, RetryDelay: 2 * time.Second, MaxRetryDelay: 5 * time.Second}
	}
	unauthorized := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":{"message":"Incorrect API key provided"}}`, http.StatusUnauthorized)
	}))
	defer unauthorized.Close()
	refused := scripted.ClosedURL(t)
	for _, tc := range []struct {
		name string
		cfg  Config
		want []string
	}{
		{"connection refused", slow(refused, "k"), []string{"cannot use the model endpoint " + refused + ": connection refused", "OPENAI_BASE_URL", "nothing was retried"}},
		{"no key for OpenAI", slow("", ""), []string{"cannot use the model endpoint https://api.openai.com/v1: no API key is set", "OPENAI_API_KEY"}},
		{"key refused", slow(unauthorized.URL+"/v1", "bad"), []string{"401 Unauthorized: Incorrect API key provided", "OPENAI_API_KEY"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			retries := 0
			start := time.Now()
			_, err := New(tc.cfg).Complete(context.Background(), agent.Request{Model: "m", Messages: []agent.Message{{Role: agent.RoleUser, Content: "hi"}},
				OnRetry: func(agent.Retry) { retries++ }}, nil)
			if err == nil {
				t.Fatal("the call succeeded")
			}
			if took := time.Since(start); took > time.Second || retries > 0 {
				t.Errorf("took %s with %d retries, want no retry", took, retries)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if !NeverReached(err) {
				t.Errorf("NeverReached(%v) = false", err)
			}
		})
	}

	script, err := scripted.Parse([]byte(twoSteps))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(scripted.NewServer(script))
	m := New(fast(srv.URL+"/v1", false))
	if _, err := m.Complete(context.Background(), agent.Request{Model: "m", Messages: []agent.Message{{Role: agent.RoleUser, Content: "hi"}}}, nil); err != nil {
		t.Fatal(err)
	}
	srv.Close()
	retries := 0
	_, err = m.Complete(context.Background(), agent.Request{Model: "m", Messages: []agent.Message{{Role: agent.RoleUser, Content: "again"}},
		OnRetry: func(agent.Retry) { retries++ }}, nil)
	var ne *NetworkError
	if !errors.As(err, &ne) || retries != 3 || NeverReached(err) {
		t.Errorf("a server that answered, then refused: err %v after %d retries; want it retried", err, retries)
	}
}

// Check probes the endpoint: reachable, key accepted, models listed.
func TestCheck(t *testing.T) {
	script, err := scripted.Parse([]byte(twoSteps))
	if err != nil {
		t.Fatal(err)
	}
	ok := httptest.NewServer(scripted.NewServer(script))
	defer ok.Close()
	unauthorized := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":{"message":"Incorrect API key provided"}}`, http.StatusUnauthorized)
	}))
	defer unauthorized.Close()
	noList := httptest.NewServer(http.NotFoundHandler())
	defer noList.Close()
	refused := scripted.ClosedURL(t)
	ctx := context.Background()

	c := New(Config{BaseURL: ok.URL + "/v1", APIKey: "k"}).Check(ctx, 5*time.Second)
	if !c.Reached || !c.KeyAccepted || !c.Listed || !c.HasModel("scripted") || c.HasModel("gpt-9") || c.Err != nil || c.Endpoint != ok.URL+"/v1" {
		t.Errorf("scripted endpoint: %+v", c)
	}
	c = New(Config{BaseURL: unauthorized.URL + "/v1", APIKey: "bad"}).Check(ctx, 5*time.Second)
	if !c.Reached || c.KeyAccepted || c.Err == nil || !strings.Contains(c.Err.Error(), "401 Unauthorized") || !NeverReached(c.Err) {
		t.Errorf("key refused: %+v", c)
	}
	c = New(Config{BaseURL: noList.URL + "/v1", APIKey: "k"}).Check(ctx, 5*time.Second)
	if !c.Reached || !c.KeyAccepted || c.Listed || !c.HasModel("any") || c.Err != nil {
		t.Errorf("endpoint that lists no models: %+v", c)
	}
	c = New(Config{BaseURL: refused, APIKey: "k"}).Check(ctx, 5*time.Second)
	if c.Reached || c.Err == nil || !strings.Contains(c.Err.Error(), "connection refused") {
		t.Errorf("refused: %+v", c)
	}
	c = New(Config{}).Check(ctx, 5*time.Second)
	if c.Reached || c.Err == nil || !strings.Contains(c.Err.Error(), "no API key is set") {
		t.Errorf("no key: %+v", c)
	}
}
