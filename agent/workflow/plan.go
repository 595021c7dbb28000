package workflow

import (
	"fmt"
	"slices"
	"strings"
)

// PlannedPulse is one pulse of an approved plan (submit_plan's pulses).
type PlannedPulse struct {
	ID              string   `json:"id"`
	Title           string   `json:"title"`
	Description     string   `json:"description"`
	ExpectedChanges []string `json:"expectedChanges"`
	EstimatedSize   string   `json:"estimatedSize"`
	DependsOn       []string `json:"dependsOn,omitempty"`
}

// Order returns the pulses in execution order: plan order, except that a
// pulse never runs before the pulses it depends on. It rejects duplicate
// ids, unknown or self dependencies and cycles, naming the pulses involved.
func Order(pulses []PlannedPulse) ([]PlannedPulse, error) {
	index := make(map[string]int, len(pulses))
	for i, p := range pulses {
		if p.ID == "" {
			return nil, fmt.Errorf("pulse %d has no id", i+1)
		}
		if _, dup := index[p.ID]; dup {
			return nil, fmt.Errorf("pulse id %q is used twice; ids must be unique", p.ID)
		}
		index[p.ID] = i
	}
	for _, p := range pulses {
		for _, d := range p.DependsOn {
			if d == p.ID {
				return nil, fmt.Errorf("pulse %q depends on itself", p.ID)
			}
			if _, ok := index[d]; !ok {
				return nil, fmt.Errorf("pulse %q depends on %q, which is not in the plan", p.ID, d)
			}
		}
	}
	const (
		unvisited = iota
		visiting
		done
	)
	state := make([]int, len(pulses))
	out := make([]PlannedPulse, 0, len(pulses))
	var visit func(i int, path []string) error
	visit = func(i int, path []string) error {
		switch state[i] {
		case done:
			return nil
		case visiting:
			cycle := append(path[slices.Index(path, pulses[i].ID):], pulses[i].ID) // only the pulses in the cycle
			return fmt.Errorf("pulses depend on each other in a cycle: %s", strings.Join(cycle, " → "))
		}
		state[i] = visiting
		for _, d := range pulses[i].DependsOn {
			if err := visit(index[d], append(path, pulses[i].ID)); err != nil {
				return err
			}
		}
		state[i] = done
		out = append(out, pulses[i])
		return nil
	}
	for i := range pulses {
		if err := visit(i, nil); err != nil {
			return nil, err
		}
	}
	return out, nil
}
