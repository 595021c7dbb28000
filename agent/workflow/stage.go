package workflow

import "fmt"

// Stage is where a workflow is in its life.
type Stage string

// The stages, in the order a full-path workflow visits them.
const (
	StageDiscussion Stage = "discussion"
	StageScoping    Stage = "scoping"
	StageResearch   Stage = "research"
	StagePlan       Stage = "plan"
	StagePreflight  Stage = "preflight"
	StagePulsing    Stage = "pulsing"
	StageReview     Stage = "review"
	StageDone       Stage = "done"
	StageAbandoned  Stage = "abandoned"
)

// Path is the route a workflow takes after Scoping.
type Path string

// Paths, as in submit_scope's recommended_path.
const (
	// PathQuick goes Scoping → Pulsing with one auto-executed pulse.
	PathQuick Path = "quick"
	// PathFull goes Scoping → Research → Plan → Pulsing.
	PathFull Path = "full"
)

// ParsePath validates a path name.
func ParsePath(s string) (Path, error) {
	switch Path(s) {
	case PathQuick, PathFull:
		return Path(s), nil
	}
	return "", fmt.Errorf("unknown workflow path %q: use quick or full", s)
}

// Next returns the stage that follows from when its work is approved, on the
// given path. Preflight precedes the pulses of either path.
func Next(from Stage, path Path) (Stage, error) {
	switch from {
	case StageDiscussion:
		return StageScoping, nil
	case StageScoping:
		if path == PathQuick {
			return StagePreflight, nil
		}
		return StageResearch, nil
	case StageResearch:
		if path == PathQuick {
			return "", fmt.Errorf("a quick workflow has no research stage")
		}
		return StagePlan, nil
	case StagePlan:
		if path == PathQuick {
			return "", fmt.Errorf("a quick workflow has no plan stage")
		}
		return StagePreflight, nil
	case StagePreflight:
		return StagePulsing, nil
	case StagePulsing:
		return StageReview, nil
	case StageReview:
		return StageDone, nil
	}
	return "", fmt.Errorf("stage %q has no next stage", from)
}

// Terminal reports whether no work remains in the stage.
func (s Stage) Terminal() bool { return s == StageDone || s == StageAbandoned }

// Role is the agent role that works in the stage ("" for none).
func (s Stage) Role() string {
	switch s {
	case StageDiscussion, StageScoping, StageResearch, StagePlan, StagePreflight, StagePulsing, StageReview:
		return string(s)
	}
	return ""
}
