package swarm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/autarch-dev/autarch/tools"
)

// EnvRate configures the rate limits: "30/60s" for every tool, then
// ",tool=N/DUR" overrides, e.g. "30/60s,fs_read=10/60s".
const EnvRate = "AUTARCH_SWARM_RATE"

// Limit is a token bucket: Calls tokens, all given back every Per.
// Calls 0 means unlimited.
type Limit struct {
	Calls int           `json:"calls" yaml:"calls"`
	Per   time.Duration `json:"per" yaml:"per"`
}

// DefaultLimit is the spec's 30 calls per 60 s per tool per agent.
var DefaultLimit = Limit{Calls: 30, Per: 60 * time.Second}

// Limits are the per-tool limits, each per agent.
type Limits struct {
	Default Limit            `json:"default" yaml:"default"`
	Tools   map[string]Limit `json:"tools,omitempty" yaml:"tools"`
}

func (l Limits) withDefaults() Limits {
	if l.Default == (Limit{}) {
		l.Default = DefaultLimit
	}
	return l
}

// For is tool's limit.
func (l Limits) For(tool string) Limit {
	if t, ok := l.Tools[tool]; ok {
		return t
	}
	return l.withDefaults().Default
}

// ParseLimits reads EnvRate's syntax ("" gives DefaultLimits).
func ParseLimits(spec string) (Limits, error) {
	l := Limits{Default: DefaultLimit}
	for part := range strings.SplitSeq(spec, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		tool, rate, named := strings.Cut(part, "=")
		if !named {
			rate, tool = tool, ""
		}
		calls, per, ok := strings.Cut(rate, "/")
		n, err1 := strconv.Atoi(strings.TrimSpace(calls))
		d, err2 := time.ParseDuration(strings.TrimSpace(per))
		if !ok || err1 != nil || err2 != nil || n < 0 || d <= 0 {
			return Limits{}, fmt.Errorf("rate limit %q: want CALLS/DURATION (e.g. 30/60s) or TOOL=CALLS/DURATION (0 calls: unlimited)", part)
		}
		if tool == "" {
			l.Default = Limit{Calls: n, Per: d}
			continue
		}
		if l.Tools == nil {
			l.Tools = map[string]Limit{}
		}
		l.Tools[strings.TrimSpace(tool)] = Limit{Calls: n, Per: d}
	}
	return l, nil
}

// RateLimited is the spec's 429 answer.
type RateLimited struct {
	Error     string `json:"error"` // "rate_limited"
	Code      int    `json:"code"`  // 429
	Tool      string `json:"tool"`
	Limit     int    `json:"limit"`
	Remaining int    `json:"remaining"`
	ResetSec  int    `json:"reset_sec"`
	Scope     string `json:"scope"`
}

// bucket is one agent's window for one tool, in the rate bucket.
type bucket struct {
	Start time.Time `json:"start"`
	Used  int       `json:"used"`
}

// Take spends one of agent's tokens for tool; nil when the call may go
// on, the 429 answer when the bucket is empty. The bucket lives in the
// swarm's rate bucket (compare-and-set), so limits hold across processes.
func (s *Swarm) Take(ctx context.Context, agent, tool string) (*RateLimited, error) {
	lim := s.limits.For(tool)
	if lim.Calls == 0 {
		return nil, nil
	}
	key := agent + "." + tool
	if msg := ValidKey(key); msg != "" {
		return nil, badInput("agent %q: use letters, digits, - and _ in agent names", agent)
	}
	for {
		now := s.now()
		var b bucket
		e, err := s.rate.Get(ctx, key)
		var rev uint64
		switch {
		case errors.Is(err, jetstream.ErrKeyNotFound):
		case err != nil:
			return nil, fmt.Errorf("rate limit %s: %w", key, err)
		default:
			rev = e.Revision()
			if json.Unmarshal(e.Value(), &b) != nil {
				b = bucket{}
			}
		}
		if b.Start.IsZero() || !now.Before(b.Start.Add(lim.Per)) {
			b = bucket{Start: now.UTC()}
		}
		if b.Used >= lim.Calls {
			reset := int(math.Ceil(b.Start.Add(lim.Per).Sub(now).Seconds()))
			return &RateLimited{Error: "rate_limited", Code: 429, Tool: tool, Limit: lim.Calls, Remaining: 0, ResetSec: max(reset, 1), Scope: agent}, nil
		}
		b.Used++
		if rev == 0 {
			_, err = s.rate.Create(ctx, key, mustJSON(b))
		} else {
			_, err = s.rate.Update(ctx, key, mustJSON(b), rev)
		}
		if isConflict(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("rate limit %s: %w", key, err)
		}
		return nil, nil
	}
}

// RateState is one agent's bucket for one tool (the swarm view).
type RateState struct {
	Agent     string `json:"agent"`
	Tool      string `json:"tool"`
	Limit     int    `json:"limit"`
	Remaining int    `json:"remaining"`
	ResetSec  int    `json:"reset_sec"`
}

// Rates lists the buckets in use.
func (s *Swarm) Rates(ctx context.Context) ([]RateState, error) {
	keys, err := s.rate.Keys(ctx)
	if errors.Is(err, jetstream.ErrNoKeysFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []RateState
	now := s.now()
	for _, k := range keys {
		agent, tool, _ := strings.Cut(k, ".")
		e, err := s.rate.Get(ctx, k)
		if err != nil {
			continue
		}
		var b bucket
		if json.Unmarshal(e.Value(), &b) != nil {
			continue
		}
		lim := s.limits.For(tool)
		st := RateState{Agent: agent, Tool: tool, Limit: lim.Calls, Remaining: lim.Calls}
		if now.Before(b.Start.Add(lim.Per)) {
			st.Remaining = max(lim.Calls-b.Used, 0)
			st.ResetSec = int(math.Ceil(b.Start.Add(lim.Per).Sub(now).Seconds()))
		}
		out = append(out, st)
	}
	return out, nil
}

// OptionsFromEnv is Options with the rate limits of AUTARCH_SWARM_RATE
// (unset: the defaults).
func OptionsFromEnv() (Options, error) { return OptionsFor(tools.SwarmConfig{}) }

// OptionsFor is Options with the repository configuration's rate limits
// (.autarch/config.yaml, key swarm), AUTARCH_SWARM_RATE overriding them.
func OptionsFor(c tools.SwarmConfig) (Options, error) {
	if spec := os.Getenv(EnvRate); spec != "" {
		l, err := ParseLimits(spec)
		if err != nil {
			return Options{}, fmt.Errorf("%s: %w", EnvRate, err)
		}
		return Options{Limits: l}, nil
	}
	return Options{Limits: LimitsFromConfig(c)}, nil
}

// LimitsFromConfig turns the configuration's limits into Limits (what it
// leaves out keeps the default).
func LimitsFromConfig(c tools.SwarmConfig) Limits {
	l := Limits{Default: DefaultLimit}
	if r := c.RateLimit; r != nil {
		l.Default = Limit{Calls: r.Calls, Per: time.Duration(r.PerSec) * time.Second}
	}
	for name, r := range c.Tools {
		if l.Tools == nil {
			l.Tools = map[string]Limit{}
		}
		l.Tools[name] = Limit{Calls: r.Calls, Per: time.Duration(r.PerSec) * time.Second}
	}
	return l
}
