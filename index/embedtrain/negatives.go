package embedtrain

import (
	"math/rand/v2"
	"sort"
)

// Hard negatives mined lexically: each pair gets the code of another pair
// that its query matches best by rare shared terms, skipping near
// duplicates of the pair itself (the same function in another copy of a
// library is not a negative).
const (
	// negMaxDF is the most codes a term may appear in to be matched on
	// (common terms say little about which code is meant).
	negMaxDF = 1000
	// negTop is how many of the best matches a negative is drawn from.
	negTop = 5
	// negDupJaccard is the term overlap (of queries or of codes) above
	// which another pair counts as a near duplicate.
	negDupJaccard = 0.5
)

// mineNegatives returns, for each example, the index of its hard negative
// (−1 when none qualifies). Deterministic for a seed.
func mineNegatives(ex []example, seed uint64, workers int) []int32 {
	df := map[int32]int{}
	for _, e := range ex {
		for _, t := range e.c {
			df[t.id]++
		}
	}
	post := map[int32][]int32{}
	for j, e := range ex {
		for _, t := range e.c {
			if n := df[t.id]; n >= 2 && n <= negMaxDF {
				post[t.id] = append(post[t.id], int32(j))
			}
		}
	}
	out := make([]int32, len(ex))
	parallel(len(ex), workers, func(lo, hi int) {
		acc := make([]float32, len(ex))
		var touched []int32
		for i := lo; i < hi; i++ {
			touched = touched[:0]
			for _, t := range ex[i].q {
				for _, j := range post[t.id] {
					if acc[j] == 0 {
						touched = append(touched, j)
					}
					acc[j] += t.w
				}
			}
			sort.Slice(touched, func(a, b int) bool {
				x, y := touched[a], touched[b]
				return acc[x] > acc[y] || acc[x] == acc[y] && x < y
			})
			var pick []int32
			for _, j := range touched {
				if len(pick) == negTop {
					break
				}
				if int(j) != i && jaccard(ex[i].q, ex[j].q) < negDupJaccard && jaccard(ex[i].c, ex[j].c) < negDupJaccard {
					pick = append(pick, j)
				}
			}
			for _, j := range touched {
				acc[j] = 0
			}
			out[i] = -1
			if len(pick) > 0 {
				rng := rand.New(rand.NewPCG(seed, uint64(i)))
				out[i] = pick[rng.IntN(len(pick))]
			}
		}
	})
	return out
}

// jaccard is the overlap of two id-sorted term lists.
func jaccard(a, b []termW) float64 {
	var inter int
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i].id == b[j].id:
			inter++
			i++
			j++
		case a[i].id < b[j].id:
			i++
		default:
			j++
		}
	}
	union := len(a) + len(b) - inter
	if union == 0 {
		return 1
	}
	return float64(inter) / float64(union)
}
