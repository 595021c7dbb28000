package git

import "sync"

// knownCommits remembers the full ids this Repo has seen to name commits
// (ResolveCommit's answers and the commits it made), so that the same id
// is not verified again by another git process: a checkpoint's receipt
// and diff resolved the new commit four times over (issue 30's pulse
// turnover). An object id names the same object forever; an id that was a
// commit stays one. The set is bounded: when full it starts again.
type knownCommits struct {
	mu  sync.Mutex
	ids map[string]struct{}
}

// maxKnownCommits bounds knownCommits (a long server session makes many).
const maxKnownCommits = 4096

func (k *knownCommits) has(id string) bool {
	if k == nil || !isOID(id) {
		return false
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	_, ok := k.ids[id]
	return ok
}

func (k *knownCommits) add(id string) {
	if k == nil || !isOID(id) {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.ids == nil || len(k.ids) >= maxKnownCommits {
		k.ids = make(map[string]struct{})
	}
	k.ids[id] = struct{}{}
}
