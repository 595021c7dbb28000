package openai

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/openai/openai-go/v3/option"
)

// UnreachableError is a model call that retrying cannot help: no server
// listens at the endpoint, its host name does not resolve, its
// certificate is refused, or no API key is set for an endpoint that needs
// one. It is returned at once, without retries, while the endpoint has
// never answered this client (a server that answered before and now
// refuses may be restarting: that is retried).
type UnreachableError struct {
	Endpoint string
	// Cause says what happened ("connection refused", "no API key is set").
	Cause string
	// Fix says what to set or start.
	Fix string
	Err error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("cannot use the model endpoint %s: %s. %s", e.Endpoint, e.Cause, e.Fix)
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// NeverReached reports whether err says that no model answered at all:
// the endpoint is unreachable, has no key, or refused the key (401, 403)
// or the path (404). Nothing was generated, so a run that failed this way
// on its first call has nothing worth keeping.
func NeverReached(err error) bool {
	var u *UnreachableError
	if errors.As(err, &u) {
		return true
	}
	var a *APIError
	if errors.As(err, &a) {
		switch a.StatusCode {
		case http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound:
			return true
		}
	}
	return false
}

// openAIHost is the host of OpenAI's API, which needs a key.
const openAIHost = "api.openai.com"

// baseURL is the endpoint the client calls, for messages.
func (m *Model) baseURL() string {
	if m.cfg.BaseURL == "" {
		return "https://" + openAIHost + "/v1"
	}
	if u, err := url.Parse(m.cfg.BaseURL); err == nil {
		return endpoint(u)
	}
	return m.cfg.BaseURL
}

// missingKey is the error of a call to OpenAI's API without a key (other
// endpoints, such as Ollama's, may need none).
func (m *Model) missingKey() error {
	if m.cfg.APIKey != "" {
		return nil
	}
	u, err := url.Parse(m.baseURL())
	if err != nil || u.Hostname() != openAIHost {
		return nil
	}
	return &UnreachableError{Endpoint: m.baseURL(), Cause: "no API key is set",
		Fix: "Set " + keyHint + ", or set " + urlHint + " to a server that needs none (such as Ollama's http://localhost:11434/v1)"}
}

// unreachable is the error of a failed attempt that retrying cannot help
// (see UnreachableError), or nil.
func (m *Model) unreachable(f *failure) error {
	if f.api != nil || f.err == nil || m.reached.Load() {
		return nil
	}
	var dns *net.DNSError
	var unknownCA x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var cause, fix string
	switch {
	case errors.Is(f.err, syscall.ECONNREFUSED):
		cause = "connection refused, so no model server listens there"
		fix = "Start the model server (for Ollama: ollama serve), or set " + urlHint + " to one that runs"
	case errors.As(f.err, &dns) && dns.IsNotFound:
		cause = fmt.Sprintf("the host name %s does not resolve", dns.Name)
		fix = "Check " + urlHint
	case errors.As(f.err, &unknownCA), errors.As(f.err, &hostname):
		cause = "its TLS certificate is not accepted (" + strings.TrimSpace(f.err.Error()) + ")"
		fix = "Check " + urlHint + " (http:// for a local server), or install the certificate's authority"
	default:
		return nil
	}
	return &UnreachableError{Endpoint: cmpOr(f.endpoint, m.baseURL()), Cause: cause, Fix: fix + "; nothing was retried, as retrying cannot fix this", Err: f.err}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// Check is what a probe of the endpoint found (autarch doctor, and the
// CLI before it starts a workflow).
type Check struct {
	Endpoint string
	// Reached: the endpoint answered over HTTP.
	Reached bool
	// KeyAccepted: it answered, and not 401 or 403.
	KeyAccepted bool
	// Listed says whether the endpoint lists models (GET /models); Models
	// are their ids.
	Listed bool
	Models []string
	// Err says what is wrong, in words (nil when the key was accepted).
	// An endpoint that does not list models (404) is not an error.
	Err error
}

// HasModel reports whether name is among the listed models (true when
// the endpoint lists none: it cannot be told).
func (c Check) HasModel(name string) bool {
	return !c.Listed || slices.Contains(c.Models, name)
}

// Check asks the endpoint for its models (GET /models) within timeout:
// whether it is reachable, accepts the key, and which models it lists.
func (m *Model) Check(ctx context.Context, timeout time.Duration) Check {
	c := Check{Endpoint: m.baseURL()}
	if err := m.missingKey(); err != nil {
		c.Err = err
		return c
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	p := &probe{started: func() {}}
	page, err := m.client.Models.List(ctx, option.WithMiddleware(p.middleware), option.WithRequestTimeout(timeout))
	if p.status != 0 {
		m.reached.Store(true)
		c.Reached = true
	}
	if p.url != nil {
		c.Endpoint = endpoint(&url.URL{Scheme: p.url.Scheme, Host: p.url.Host, Path: strings.TrimSuffix(p.url.Path, "/models")})
	}
	switch {
	case err == nil:
		c.KeyAccepted, c.Listed = true, true
		for _, mod := range page.Data {
			c.Models = append(c.Models, mod.ID)
		}
	case p.status == http.StatusUnauthorized || p.status == http.StatusForbidden:
		c.Err = &APIError{StatusCode: p.status, Message: providerMessage(p.body), Endpoint: c.Endpoint}
	case p.status != 0:
		c.KeyAccepted = true // it answered, just lists no models here
	default:
		f := &failure{err: err, endpoint: c.Endpoint}
		if u := m.unreachable(f); u != nil {
			c.Err = u
		} else {
			c.Err = fmt.Errorf("cannot reach the model endpoint %s: %s. Check %s", c.Endpoint, describe(err, 0), urlHint)
		}
	}
	return c
}
