package swarm

// firstN keeps the first limit items it is given and counts them all:
// the answer of fs_list and search_text, which stop listing at their
// max_results or max_matches but say how many there were.
type firstN[T any] struct {
	limit, total int
	items        []T
}

func newFirstN[T any](limit int) *firstN[T] {
	return &firstN[T]{limit: limit, items: []T{}}
}

func (f *firstN[T]) add(x T) {
	f.addFunc(func() T { return x })
}

// addFunc is add of the item made, only when it is kept.
func (f *firstN[T]) addFunc(item func() T) {
	f.total++
	if len(f.items) < f.limit {
		f.items = append(f.items, item())
	}
}

// answer is the items under key with their count, and truncated and the
// total when more were found than kept.
func (f *firstN[T]) answer(key string) map[string]any {
	out := map[string]any{key: f.items, "count": len(f.items)}
	if f.total > len(f.items) {
		out["truncated"], out["total"] = true, f.total
	}
	return out
}
