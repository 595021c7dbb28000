package tools

import (
	"fmt"

	"github.com/autarch-dev/autarch/tools/verify"
)

// Repository configuration may only tighten what agents can do unless the
// user trusted its exact content: a command can write .autarch/config.yaml
// where none existed (or an agent can commit one on a branch the user
// checks out), so untrusted settings that would widen the agents' reach
// — network, deletion, longer timeouts, looser swarm rate limits, fewer
// or narrower quality gates — are dropped, each named in Project.Loosened
// so the user learns what trusting would change. Settings that restrict
// (protected paths, blocked commands, caps, code rules, commands off,
// allowed_only, network never, shorter timeouts, stricter rate limits,
// full gates) apply whatever the trust.

// loosening is one setting of an untrusted configuration that was dropped.
type loosening struct {
	key, value string
}

func (l loosening) String() string {
	return fmt.Sprintf("%s: %s", l.key, l.value)
}

// tightenOnly returns c without the settings that widen what agents may
// do, and what it dropped.
func (c Config) tightenOnly() (Config, []loosening) {
	var dropped []loosening
	switch c.Sandbox.Network {
	case "", NetworkPreflight, NetworkNever:
	default:
		dropped = append(dropped, loosening{"sandbox.network", c.Sandbox.Network})
		c.Sandbox.Network = ""
	}
	if c.Workspace.AllowDelete {
		dropped = append(dropped, loosening{"workspace.allow_delete", "true"})
		c.Workspace.AllowDelete = false
	}
	if t := c.Commands.DefaultTimeout; t > ShellTimeoutDefault {
		dropped = append(dropped, loosening{"commands.default_timeout", fmt.Sprint(t)})
		c.Commands.DefaultTimeout = 0
	}
	if r := c.Swarm.RateLimit; r != nil && !r.stricterThanDefault() {
		dropped = append(dropped, loosening{"swarm.rate_limit", r.String()})
		c.Swarm.RateLimit = nil
	}
	if len(c.Swarm.Tools) > 0 {
		kept := map[string]RateLimit{}
		for name, r := range c.Swarm.Tools {
			if r.stricterThanDefault() {
				kept[name] = r
				continue
			}
			dropped = append(dropped, loosening{"swarm.tools." + name, r.String()})
		}
		c.Swarm.Tools = kept
	}
	return c, dropped
}

// The swarm tools' default limit (the spec's 30 calls per 60 s per tool
// per agent, as package swarm's DefaultLimit).
const (
	defaultRateCalls  = 30
	defaultRatePerSec = 60
)

// stricterThanDefault reports whether r allows no more calls per second
// than the default (calls 0 means unlimited: never stricter).
func (r RateLimit) stricterThanDefault() bool {
	if r.Calls == 0 || r.PerSec <= 0 {
		return false
	}
	// r.Calls/r.PerSec <= default calls/per_sec, in integers.
	return r.Calls*defaultRatePerSec <= defaultRateCalls*r.PerSec
}

func (r RateLimit) String() string {
	if r.Calls == 0 {
		return "unlimited"
	}
	return fmt.Sprintf("%d calls per %d s", r.Calls, r.PerSec)
}

// tightenOnly drops what would switch quality gates off or narrow them
// (QualityGates.quality applies it to untrusted content):
// enabled false, a subset of gates, path filters and a longer timeout.
// full: true (every file checked) is stricter and stays.
func (q QualityGates) tightenOnly() (QualityGates, []loosening) {
	var dropped []loosening
	if q.Enabled != nil && !*q.Enabled {
		dropped = append(dropped, loosening{"guardrails.quality_gates.enabled", "false"})
		q.Enabled = nil
	}
	if len(q.Gates) > 0 && len(q.Gates) < len(verify.Kinds) {
		dropped = append(dropped, loosening{"guardrails.quality_gates.gates", fmt.Sprint(q.Gates)})
		q.Gates = nil
	}
	if len(q.Paths) > 0 {
		dropped = append(dropped, loosening{"guardrails.quality_gates.paths", fmt.Sprint(q.Paths)})
		q.Paths = nil
	}
	if q.Timeout > 0 && q.Timeout > int(verify.DefaultGateTimeout.Seconds()) {
		dropped = append(dropped, loosening{"guardrails.quality_gates.timeout", fmt.Sprint(q.Timeout)})
		q.Timeout = 0
	}
	if q.TimeoutMS > 0 && q.TimeoutMS > int(verify.DefaultGateTimeout.Milliseconds()) {
		dropped = append(dropped, loosening{"quality gates timeoutMs", fmt.Sprint(q.TimeoutMS)})
		q.TimeoutMS = 0
	}
	return q, dropped
}
