package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/autarch-dev/autarch/tools/verify"
	"github.com/autarch-dev/autarch/workspace/trust"
)

// QualityFile is the legacy file that configured the quality gates
// (JSON, deprecated: guardrails.quality_gates in ConfigFile replaces it):
//
//	{"enabled": true, "gates": ["build", "test", "lint"], "full": false,
//	 "timeoutMs": 600000, "paths": ["services/**"], "commands": {"test": "make test"}}
//
// It is still read, with a deprecation warning, when ConfigFile has no
// guardrails.quality_gates.
const QualityFile = trust.QualityFile

// QualityGates is guardrails.quality_gates in ConfigFile:
//
//	guardrails:
//	  quality_gates:
//	    enabled: true              # false turns the gates off
//	    gates: [build, test, lint] # which gates run (default: all three)
//	    full: false                # true: whole project, not only what the change affects
//	    timeout: 600               # seconds, bound of one gate run (default 10 minutes)
//	    paths: ["services/**"]     # run only when a changed file matches
//	    commands: {test: make test} # replace the detected checks of a gate
//
// Settings that only select among the detected checks are honoured
// whatever the file's trust; commands run only when the user trusts the
// repository's configuration (autarch trust), otherwise they are ignored,
// reported, and the detected checks run instead.
type QualityGates struct {
	Enabled  *bool             `yaml:"enabled" json:"enabled"`
	Gates    []verify.Kind     `yaml:"gates" json:"gates"`
	Full     bool              `yaml:"full" json:"full"`
	Timeout  int               `yaml:"timeout" json:"-"`
	Paths    []string          `yaml:"paths" json:"paths"`
	Commands map[string]string `yaml:"commands" json:"commands"`
	// TimeoutMS is the legacy file's timeoutMs.
	TimeoutMS int `yaml:"-" json:"timeoutMs"`
}

// Quality is the quality-gate configuration of a repository.
type Quality struct {
	Gates verify.Gates
	// Ignored are configured commands not honoured for want of trust.
	Ignored []string
	// Loosened are untrusted settings dropped because they would switch
	// gates off or narrow them (QualityGates.tightenOnly).
	Loosened []string
}

// ParseQuality reads the legacy QualityFile's content (nil: the defaults,
// every gate on, affected-only). trusted says whether its commands may run.
func ParseQuality(data []byte, trusted bool) (Quality, error) {
	if len(data) == 0 {
		return Quality{}, nil
	}
	var f QualityGates
	if err := json.Unmarshal(data, &f); err != nil {
		return Quality{}, fmt.Errorf("%s: %w (expected {\"enabled\", \"gates\", \"full\", \"timeoutMs\", \"paths\", \"commands\"})", QualityFile, err)
	}
	if f.TimeoutMS < 0 {
		return Quality{}, fmt.Errorf("%s: timeoutMs must be positive", QualityFile)
	}
	f.Timeout = 0
	q, err := f.quality(trusted)
	if err != nil {
		return Quality{}, fmt.Errorf("%s: %w", QualityFile, err)
	}
	return q, nil
}

// check reports what makes the settings unusable.
func (f QualityGates) check() error {
	_, err := f.quality(true)
	return err
}

// Quality is the gates' configuration; trusted says whether the
// configured commands may run.
func (f QualityGates) Quality(trusted bool) (Quality, error) {
	return f.quality(trusted)
}

func (f QualityGates) quality(trusted bool) (Quality, error) {
	var q Quality
	if !trusted {
		var dropped []loosening
		f, dropped = f.tightenOnly()
		for _, d := range dropped {
			q.Loosened = append(q.Loosened, d.String())
		}
	}
	timeout := time.Duration(f.Timeout) * time.Second
	if f.TimeoutMS > 0 {
		timeout = time.Duration(f.TimeoutMS) * time.Millisecond
	}
	for _, k := range f.Gates {
		if !slices.Contains(verify.Kinds, k) {
			return q, fmt.Errorf("unknown gate %q: use build, test or lint", k)
		}
	}
	for _, p := range f.Paths {
		if !doublestar.ValidatePattern(p) {
			return q, fmt.Errorf("invalid path pattern %q", p)
		}
	}
	if f.Timeout < 0 {
		return q, errors.New("timeout must be a positive number of seconds")
	}
	q.Gates = verify.Gates{Off: f.Enabled != nil && !*f.Enabled, Kinds: f.Gates, Full: f.Full, Timeout: timeout, Paths: f.Paths}
	for k, cmd := range f.Commands {
		if !slices.Contains(verify.Kinds, verify.Kind(k)) {
			return q, fmt.Errorf("command for unknown gate %q: use build, test or lint", k)
		}
		if !trusted {
			q.Ignored = append(q.Ignored, cmd)
			continue
		}
		if q.Gates.Commands == nil {
			q.Gates.Commands = map[verify.Kind]string{}
		}
		q.Gates.Commands[verify.Kind(k)] = cmd
	}
	slices.Sort(q.Ignored)
	return q, nil
}

// QualityGates runs the gates for the changed files (relative to the
// root) in the session's sandbox, with its baselines filtering, and
// redacts what the reports show. Gates that ran and passed resolve the
// session's failed commands.
func (s *Session) QualityGates(ctx context.Context, g verify.Gates, changed []string) verify.GateRun {
	defer s.holdMasks()()
	run := verify.RunGates(ctx, s.verifyExec(), s.detector(), g, changed, s.verifyBaselines())
	for i := range run.Reports {
		s.redactReport(&run.Reports[i])
	}
	if len(run.Reports) > 0 && !run.Failed() {
		s.resolveCommandFailures() // spec 004-58: passing gates clear failed commands
	}
	return run
}

// ConfiguredCheck runs the quality gates' configured command of a kind
// (guardrails.quality_gates.commands, trusted configuration only) at the
// root, in the session's sandbox, with its baselines filtering; ok is
// false when none is configured.
func (s *Session) ConfiguredCheck(ctx context.Context, k verify.Kind) (r verify.Report, ok bool) {
	q, ok := s.guardrails.Load().Quality()
	cmd := q.Gates.Commands[k]
	if !ok || cmd == "" {
		return verify.Report{}, false
	}
	timeout := q.Gates.Timeout
	if timeout <= 0 {
		timeout = verify.DefaultGateTimeout
	}
	r = verify.Run(ctx, s.verifyExec(), verify.Configured(k, cmd), verify.Target{}, timeout)
	r.Filter(s.verifyBaselines())
	s.redactReport(&r)
	return r, true
}
