package embedtrain

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/autarch-dev/autarch/index"
)

// Config sets the model and its training.
type Config struct {
	Version  string
	Dim      int     // vector length (256)
	Vocab    int     // most terms kept
	MinDF    int     // least texts a term appears in
	Adjusted int     // terms with their own query and code rows
	Tau      float32 // InfoNCE temperature
	Batch    int
	LR       float64 // Adam's initial rate, decayed linearly to 0
	Epochs   float64
	Seed     uint64
	Workers  int
	// Heldout pairs (taken out of training) measure retrieval among
	// themselves every EvalEvery steps: the learning curve.
	// HardBits > 0 groups each epoch's batches by a HardBits-bit random
	// hyperplane hash of the code's initial vector, so that a batch's
	// negatives are about the same things (cheap mined hard negatives).
	HardBits int
	// HardNegatives adds to each batch one lexically mined hard negative
	// code per pair (negatives.go).
	HardNegatives bool
	Heldout       int
	EvalEvery     int
	Log           func(format string, args ...any)
}

// DefaultConfig is the shipped model's configuration.
func DefaultConfig() Config {
	return Config{Version: "code-v1", Dim: 256, Vocab: 40000, MinDF: 3, Adjusted: 4000, Tau: 0.05, Batch: 512, LR: 3e-3,
		Epochs: 1, Seed: 1, Workers: 2, Heldout: 2000, EvalEvery: 100, Log: func(string, ...any) {}}
}

// model holds the float parameters: shared rows, query and code
// adjustments (added to the shared rows of the first Adjusted terms).
type model struct {
	dim, n, k int
	e, aq, ac []float32
}

// row writes a term's row on one side into dst.
func (m *model) row(id int32, query bool, dst []float32) {
	copy(dst, m.e[int(id)*m.dim:int(id+1)*m.dim])
	if int(id) < m.k {
		a := m.ac
		if query {
			a = m.aq
		}
		axpy(dst, a[int(id)*m.dim:int(id+1)*m.dim], 1)
	}
}

// pool returns the unnormalised weighted sum of a text's rows.
func (m *model) pool(ts []termW, query bool, out, tmp []float32) {
	clear(out)
	for _, t := range ts {
		m.row(t.id, query, tmp)
		axpy(out, tmp, t.w)
	}
}

// Train learns term vectors from pairs and returns them quantized.
func Train(ctx context.Context, pairs []Pair, cfg Config) (*index.EmbedderWeights, error) {
	rng := rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x5eed))
	voc, tfs := buildVocabulary(pairs, cfg.Vocab, cfg.MinDF)
	ex := make([]example, 0, len(pairs))
	for _, tf := range tfs {
		e := example{voc.encode(tf[0]), voc.encode(tf[1])}
		if len(e.q) > 0 && len(e.c) > 0 {
			ex = append(ex, e)
		}
	}
	rng.Shuffle(len(ex), func(i, j int) { ex[i], ex[j] = ex[j], ex[i] })
	held := ex[:min(cfg.Heldout, len(ex)/10)]
	ex = ex[len(held):]
	cfg.Log("vocabulary %d terms; %d training pairs, %d held out", len(voc.terms), len(ex), len(held))
	if len(ex) < cfg.Batch {
		return nil, fmt.Errorf("only %d usable pairs: fewer than a batch of %d", len(ex), cfg.Batch)
	}
	m := &model{dim: cfg.Dim, n: len(voc.terms), k: min(cfg.Adjusted, len(voc.terms))}
	m.e = embedPPMI(ppmi(ex, m.n, 32), cfg.Dim, rng, cfg.Workers)
	m.aq, m.ac = make([]float32, m.k*m.dim), make([]float32, m.k*m.dim)
	cfg.Log("PPMI-SVD initialisation done; held-out MRR %.3f", m.heldoutMRR(held, cfg.Workers))
	if err := m.train(ctx, ex, held, cfg, rng); err != nil {
		return nil, err
	}
	return m.export(cfg.Version, voc), nil
}

// adam is a lazily updated Adam state for a table of rows.
type adam struct{ m, v []float32 }

func (m *model) train(ctx context.Context, ex, held []example, cfg Config, rng *rand.Rand) error {
	steps := int(cfg.Epochs * float64(len(ex)) / float64(cfg.Batch))
	opt := [3]adam{
		{make([]float32, len(m.e)), make([]float32, len(m.e))},
		{make([]float32, len(m.aq)), make([]float32, len(m.aq))},
		{make([]float32, len(m.ac)), make([]float32, len(m.ac))},
	}
	grad := [3]map[int32][]float32{}
	d, b := m.dim, cfg.Batch
	var neg []int32
	nc := b // codes per batch: the positives, then any hard negatives
	if cfg.HardNegatives {
		neg = mineNegatives(ex, cfg.Seed, cfg.Workers)
		nc = 2 * b
		found := 0
		for _, j := range neg {
			if j >= 0 {
				found++
			}
		}
		cfg.Log("hard negatives mined for %d of %d pairs", found, len(ex))
	}
	u, v := make([]float32, b*d), make([]float32, nc*d)
	un, vn := make([]float32, b), make([]float32, nc)
	s := make([]float32, b*nc)
	du, dv := make([]float32, b*d), make([]float32, nc*d)
	codeOf := func(batch []int, j int) []termW { // the j-th code of a batch
		if j < b {
			return ex[batch[j]].c
		}
		if k := neg[batch[j-b]]; k >= 0 {
			return ex[k].c
		}
		return nil
	}
	order := make([]int, len(ex))
	for i := range order {
		order[i] = i
	}
	pos := len(order)
	var bucket []uint32
	if cfg.HardBits > 0 {
		bucket = m.buckets(ex, cfg.HardBits, rng)
	}
	for step := 0; step < steps; step++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		if pos+b > len(order) {
			rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
			if bucket != nil {
				groupBatches(order, bucket, b, rng)
			}
			pos = 0
		}
		batch := order[pos : pos+b]
		pos += b
		// Forward: unit query and code vectors, scores / τ.
		parallel(b, cfg.Workers, func(lo, hi int) {
			tmp := make([]float32, d)
			for i := lo; i < hi; i++ {
				m.pool(ex[batch[i]].q, true, u[i*d:(i+1)*d], tmp)
				un[i] = max(norm(u[i*d:(i+1)*d]), 1e-6)
				scale(u[i*d:(i+1)*d], 1/un[i])
			}
		})
		parallel(nc, cfg.Workers, func(lo, hi int) {
			tmp := make([]float32, d)
			for j := lo; j < hi; j++ {
				m.pool(codeOf(batch, j), false, v[j*d:(j+1)*d], tmp)
				vn[j] = max(norm(v[j*d:(j+1)*d]), 1e-6)
				scale(v[j*d:(j+1)*d], 1/vn[j])
			}
		})
		parallel(b, cfg.Workers, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				for j := range nc {
					s[i*nc+j] = dot(u[i*d:(i+1)*d], v[j*d:(j+1)*d]) / cfg.Tau
					if j >= b && neg[batch[j-b]] < 0 {
						s[i*nc+j] = -1e4 // no negative: masked out
					}
				}
			}
		})
		// Symmetric InfoNCE: dS = (softmax over rows + softmax over
		// columns − 2I) / 2b; rows span every code of the batch, columns
		// the positives' queries.
		ds := make([]float32, b*nc)
		var loss float64
		for i := range b {
			loss += softmaxInto(s[i*nc:(i+1)*nc], 1, ds[i*nc:], 1, i, float32(0.5/float64(b)))
			loss += softmaxInto(s[i:b*nc], nc, ds[i:], nc, i, float32(0.5/float64(b)))
		}
		// Backward to the unit vectors, then through the normalisation.
		parallel(b, cfg.Workers, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				unitGrad(du[i*d:(i+1)*d], u[i*d:(i+1)*d], un[i], v, nc, func(j int) float32 { return ds[i*nc+j] / cfg.Tau })
			}
		})
		parallel(nc, cfg.Workers, func(lo, hi int) {
			for j := lo; j < hi; j++ {
				unitGrad(dv[j*d:(j+1)*d], v[j*d:(j+1)*d], vn[j], u, b, func(i int) float32 { return ds[i*nc+j] / cfg.Tau })
			}
		})
		for t := range grad {
			grad[t] = map[int32][]float32{}
		}
		acc := func(table int, id int32, g []float32, w float32) {
			r, ok := grad[table][id]
			if !ok {
				r = make([]float32, d)
				grad[table][id] = r
			}
			axpy(r, g, w)
		}
		accCode := func(j int) {
			for _, t := range codeOf(batch, j) {
				acc(0, t.id, dv[j*d:(j+1)*d], t.w)
				if int(t.id) < m.k {
					acc(2, t.id, dv[j*d:(j+1)*d], t.w)
				}
			}
		}
		for i, k := range batch {
			for _, t := range ex[k].q {
				acc(0, t.id, du[i*d:(i+1)*d], t.w)
				if int(t.id) < m.k {
					acc(1, t.id, du[i*d:(i+1)*d], t.w)
				}
			}
			accCode(i)
		}
		for j := b; j < nc; j++ {
			accCode(j)
		}
		lr := cfg.LR * (1 - float64(step)/float64(steps))
		for t, tab := range [3][]float32{m.e, m.aq, m.ac} {
			opt[t].step(tab, grad[t], d, lr, step+1)
		}
		if cfg.EvalEvery > 0 && ((step+1)%cfg.EvalEvery == 0 || step == steps-1) {
			cfg.Log("step %d/%d (epoch %.2f): loss %.3f, held-out MRR %.3f", step+1, steps, float64((step+1)*b)/float64(len(ex)), loss/float64(b), m.heldoutMRR(held, cfg.Workers))
		}
	}
	return nil
}

// unitGrad writes into dx the gradient of the loss with respect to x's
// unnormalised vector (x is its unit vector, n its norm): the sum of the
// count unit vectors of the other side weighted by g, projected off x and
// divided by n.
func unitGrad(dx, x []float32, n float32, other []float32, count int, g func(k int) float32) {
	d := len(x)
	clear(dx)
	for k := range count {
		if w := g(k); w != 0 {
			axpy(dx, other[k*d:(k+1)*d], w)
		}
	}
	axpy(dx, x, -dot(x, dx))
	scale(dx, 1/n)
}

// buckets hashes each example's code vector by the signs of its
// projections on bits random hyperplanes.
func (m *model) buckets(ex []example, bits int, rng *rand.Rand) []uint32 {
	planes := make([]float32, bits*m.dim)
	for i := range planes {
		planes[i] = float32(rng.NormFloat64())
	}
	out := make([]uint32, len(ex))
	v, tmp := make([]float32, m.dim), make([]float32, m.dim)
	for i, e := range ex {
		m.pool(e.c, false, v, tmp)
		for b := range bits {
			if dot(v, planes[b*m.dim:(b+1)*m.dim]) > 0 {
				out[i] |= 1 << b
			}
		}
	}
	return out
}

// groupBatches orders a shuffled order by bucket (stable) and shuffles the
// resulting batches, so each batch draws from one or two buckets.
func groupBatches(order []int, bucket []uint32, b int, rng *rand.Rand) {
	sort.SliceStable(order, func(i, j int) bool { return bucket[order[i]] < bucket[order[j]] })
	n := len(order) / b
	perm := rng.Perm(n)
	tmp := append([]int(nil), order...)
	for i, p := range perm {
		copy(order[i*b:(i+1)*b], tmp[p*b:(p+1)*b])
	}
}

// softmaxInto writes w·(softmax(x) − onehot(target)) into out (both
// strided) and returns the cross-entropy.
func softmaxInto(x []float32, stride int, out []float32, ostride, target int, w float32) float64 {
	mx := float32(math.Inf(-1))
	for j := 0; j*stride < len(x); j++ {
		mx = max(mx, x[j*stride])
	}
	var z float64
	for j := 0; j*stride < len(x); j++ {
		z += math.Exp(float64(x[j*stride] - mx))
	}
	for j := 0; j*stride < len(x) && j*ostride < len(out); j++ {
		p := float32(math.Exp(float64(x[j*stride]-mx)) / z)
		if j == target {
			p--
		}
		out[j*ostride] += w * p
	}
	return -(float64(x[target*stride]-mx) - math.Log(z))
}

// step applies Adam (β 0.9/0.999) to the rows with a gradient.
func (a *adam) step(tab []float32, grad map[int32][]float32, d int, lr float64, t int) {
	const b1, b2, eps = 0.9, 0.999, 1e-8
	c1 := 1 - math.Pow(b1, float64(t))
	c2 := 1 - math.Pow(b2, float64(t))
	step := float32(lr * math.Sqrt(c2) / c1)
	ids := make([]int32, 0, len(grad))
	for id := range grad {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		g := grad[id]
		o := int(id) * d
		for i, x := range g {
			a.m[o+i] = b1*a.m[o+i] + (1-b1)*x
			a.v[o+i] = b2*a.v[o+i] + (1-b2)*x*x
			tab[o+i] -= step * a.m[o+i] / (float32(math.Sqrt(float64(a.v[o+i]))) + eps)
		}
	}
}

// heldoutMRR ranks each held-out query's code among all held-out codes.
func (m *model) heldoutMRR(held []example, workers int) float64 {
	d := m.dim
	n := len(held)
	u, v := make([]float32, n*d), make([]float32, n*d)
	parallel(n, workers, func(lo, hi int) {
		tmp := make([]float32, d)
		for i := lo; i < hi; i++ {
			m.pool(held[i].q, true, u[i*d:(i+1)*d], tmp)
			m.pool(held[i].c, false, v[i*d:(i+1)*d], tmp)
			scale(u[i*d:(i+1)*d], 1/max(norm(u[i*d:(i+1)*d]), 1e-6))
			scale(v[i*d:(i+1)*d], 1/max(norm(v[i*d:(i+1)*d]), 1e-6))
		}
	})
	rr := make([]float64, n)
	parallel(n, workers, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			own := dot(u[i*d:(i+1)*d], v[i*d:(i+1)*d])
			rank := 1
			for j := range n {
				if j != i && dot(u[i*d:(i+1)*d], v[j*d:(j+1)*d]) > own {
					rank++
				}
			}
			rr[i] = 1 / float64(rank)
		}
	})
	var s float64
	for _, x := range rr {
		s += x
	}
	return s / float64(max(n, 1))
}

// export quantizes the shared rows, then the query and code rows of the
// adjusted terms (shared + adjustment).
func (m *model) export(version string, voc *vocabulary) *index.EmbedderWeights {
	d := m.dim
	w := &index.EmbedderWeights{Version: version, Dim: d, Vocab: voc.terms, IDF: voc.idf, Adjusted: m.k,
		Rows: make([]int8, (m.n+2*m.k)*d), Scale: make([]float32, m.n+2*m.k)}
	tmp := make([]float32, d)
	for r := range m.n + 2*m.k {
		switch {
		case r < m.n:
			copy(tmp, m.e[r*d:(r+1)*d])
		case r < m.n+m.k:
			m.row(int32(r-m.n), true, tmp)
		default:
			m.row(int32(r-m.n-m.k), false, tmp)
		}
		w.Scale[r] = index.QuantizeRow(tmp, w.Rows[r*d:(r+1)*d])
	}
	// The version names the weights themselves: an index re-embeds when
	// they change.
	h := sha256.New()
	for _, t := range w.Vocab {
		h.Write([]byte(t + "\n"))
	}
	binary.Write(h, binary.LittleEndian, w.IDF)
	binary.Write(h, binary.LittleEndian, w.Scale)
	binary.Write(h, binary.LittleEndian, w.Rows)
	w.Version = fmt.Sprintf("%s-%x", version, h.Sum(nil)[:4])
	return w
}
