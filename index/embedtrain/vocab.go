package embedtrain

import (
	"math"
	"sort"

	"github.com/autarch-dev/autarch/index"
)

// termW is a term of a text and its pooling weight, (1+ln tf)·IDF.
type termW struct {
	id int32
	w  float32
}

// example is a pair encoded over the vocabulary.
type example struct{ q, c []termW }

// vocabulary is the training's terms, most frequent first, and their IDF.
type vocabulary struct {
	terms []string
	ids   map[string]int32
	idf   []float32
}

// counts are a text's term frequencies, as the index tokenizes.
func counts(text string) map[string]int {
	tf := map[string]int{}
	index.Tokens(text, func(s string) { tf[s]++ })
	return tf
}

// buildVocabulary keeps the terms found in at least minDF texts (queries
// and code counted separately), at most size of them, by document
// frequency; IDF is BM25's over all the texts.
func buildVocabulary(pairs []Pair, size, minDF int) (*vocabulary, [][2]map[string]int) {
	df := map[string]int{}
	tfs := make([][2]map[string]int, len(pairs))
	for i, p := range pairs {
		tfs[i] = [2]map[string]int{counts(p.Query), counts(p.Code)}
		for _, tf := range tfs[i] {
			for t := range tf {
				df[t]++
			}
		}
	}
	var terms []string
	for t, n := range df {
		if n >= minDF {
			terms = append(terms, t)
		}
	}
	sort.Slice(terms, func(i, j int) bool {
		if df[terms[i]] != df[terms[j]] {
			return df[terms[i]] > df[terms[j]]
		}
		return terms[i] < terms[j]
	})
	if len(terms) > size {
		terms = terms[:size]
	}
	v := &vocabulary{terms: terms, ids: make(map[string]int32, len(terms)), idf: make([]float32, len(terms))}
	n := float64(2 * len(pairs))
	for i, t := range terms {
		v.ids[t] = int32(i)
		d := float64(df[t])
		v.idf[i] = float32(math.Log(1 + (n-d+0.5)/(d+0.5)))
	}
	return v, tfs
}

// encode turns term counts into sorted (id, weight) lists.
func (v *vocabulary) encode(tf map[string]int) []termW {
	out := make([]termW, 0, len(tf))
	for t, n := range tf {
		if id, ok := v.ids[t]; ok {
			out = append(out, termW{id, float32((1 + math.Log(float64(n))) * float64(v.idf[id]))})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}
