package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/autarch-dev/autarch/tools/verify"
	"github.com/autarch-dev/autarch/workspace/trust"
)

// QualityFile is the repository file that configures the quality gates
// (JSON):
//
//	{
//	  "enabled": true,                      // false turns the gates off
//	  "gates": ["build", "test", "lint"],   // which gates run (default: all three)
//	  "full": false,                        // true: whole project, not only what the change affects
//	  "timeoutMs": 600000,                  // bound of one gate run (default 10 minutes)
//	  "paths": ["services/**"],             // run only when a changed file matches
//	  "commands": {"test": "make test"}     // replace the detected checks of a gate
//	}
//
// Settings that only select among the detected checks are honoured
// whatever the file's trust; commands run only when the user trusts the
// repository's configuration (autarch trust), otherwise they are ignored,
// reported, and the detected checks run instead.
const QualityFile = trust.QualityFile

// Quality is the quality-gate configuration of a repository.
type Quality struct {
	Gates verify.Gates
	// Ignored are configured commands not honoured for want of trust.
	Ignored []string
}

type qualityFile struct {
	Enabled   *bool             `json:"enabled"`
	Gates     []verify.Kind     `json:"gates"`
	Full      bool              `json:"full"`
	TimeoutMS int               `json:"timeoutMs"`
	Paths     []string          `json:"paths"`
	Commands  map[string]string `json:"commands"`
}

// ParseQuality reads QualityFile's content (nil: the defaults, every
// gate on, affected-only). trusted says whether its commands may run.
func ParseQuality(data []byte, trusted bool) (Quality, error) {
	var q Quality
	if len(data) == 0 {
		return q, nil
	}
	var f qualityFile
	if err := json.Unmarshal(data, &f); err != nil {
		return q, fmt.Errorf("%s: %w (expected {\"enabled\", \"gates\", \"full\", \"timeoutMs\", \"paths\", \"commands\"})", QualityFile, err)
	}
	for _, k := range f.Gates {
		if !slices.Contains(verify.Kinds, k) {
			return q, fmt.Errorf("%s: unknown gate %q: use build, test or lint", QualityFile, k)
		}
	}
	for _, p := range f.Paths {
		if !doublestar.ValidatePattern(p) {
			return q, fmt.Errorf("%s: invalid path pattern %q", QualityFile, p)
		}
	}
	if f.TimeoutMS < 0 {
		return q, fmt.Errorf("%s: timeoutMs must be positive", QualityFile)
	}
	q.Gates = verify.Gates{Off: f.Enabled != nil && !*f.Enabled, Kinds: f.Gates, Full: f.Full,
		Timeout: time.Duration(f.TimeoutMS) * time.Millisecond, Paths: f.Paths}
	for k, cmd := range f.Commands {
		if !slices.Contains(verify.Kinds, verify.Kind(k)) {
			return q, fmt.Errorf("%s: command for unknown gate %q: use build, test or lint", QualityFile, k)
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
// redacts what the reports show.
func (s *Session) QualityGates(ctx context.Context, g verify.Gates, changed []string) verify.GateRun {
	run := verify.RunGates(ctx, s.verifyExec(), s.detector(), g, changed, s.verifyBaselines())
	for i := range run.Reports {
		s.redactReport(&run.Reports[i])
	}
	return run
}
