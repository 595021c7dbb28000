package tools

import "slices"

// FilesInPlay lists the files the session read or wrote (relative to the
// root), sorted: what decides which project rules apply.
func (s *Session) FilesInPlay() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.read)+len(s.written))
	for f := range s.read {
		out = append(out, f)
	}
	for f := range s.written {
		if !s.read[f] {
			out = append(out, f)
		}
	}
	slices.Sort(out)
	return out
}
