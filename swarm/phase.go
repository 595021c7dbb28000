package swarm

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Context keys of the round protocol.
const (
	PhaseKey      = "phase"        // the round the orchestrator is in (a number)
	PhaseReadyKey = "phase_ready." // + agent: the last phase the agent finished
)

// SetPhase records the orchestrator's phase (round) in shared context.
func (s *Swarm) SetPhase(ctx context.Context, phase int64) error {
	if _, err := s.kv.Put(ctx, PhaseKey, strconv.AppendInt(nil, phase, 10)); err != nil {
		return fmt.Errorf("setting phase: %w", err)
	}
	return nil
}

// Phase is the recorded phase (0 before the first, or when an agent
// stored something that is not a number there).
func (s *Swarm) Phase(ctx context.Context) (int64, error) {
	e, err := s.Get(ctx, PhaseKey)
	if err != nil {
		return 0, err
	}
	var n json.Number
	if json.Unmarshal(e.Value, &n) != nil {
		return 0, nil
	}
	v, err := n.Int64()
	if err != nil {
		return 0, nil
	}
	return v, nil
}

// MarkReady records that agent finished phase (phase_ready.<agent>).
func (s *Swarm) MarkReady(ctx context.Context, agent string, phase int64) error {
	if _, err := s.kv.Put(ctx, PhaseReadyKey+agent, strconv.AppendInt(nil, phase, 10)); err != nil {
		return fmt.Errorf("marking %s ready: %w", agent, err)
	}
	return nil
}

// Waiting is the barrier: which of agents have not yet marked phase (or
// a later one) ready; empty when all have.
func (s *Swarm) Waiting(ctx context.Context, phase int64, agents []string) ([]string, error) {
	var out []string
	for _, a := range agents {
		e, err := s.Get(ctx, PhaseReadyKey+a)
		if err != nil {
			return nil, err
		}
		v, err := strconv.ParseInt(strings.TrimSpace(string(e.Value)), 10, 64)
		if err != nil || v < phase {
			out = append(out, a)
		}
	}
	return out, nil
}
