package embedtrain

import (
	"math"
	"math/rand/v2"
	"sort"
	"sync"
)

// csr is a sparse symmetric matrix in compressed rows.
type csr struct {
	n      int
	rowPtr []int
	col    []int32
	val    []float32
}

// ppmi builds the positive PMI matrix of term co-occurrence within
// examples: each example's query terms and its code's highest-weighted
// terms (at most window of them together) co-occur pairwise.
func ppmi(ex []example, n, window int) *csr {
	co := map[uint64]float32{}
	var bag []termW
	for _, e := range ex {
		bag = append(bag[:0], e.q...)
		c := append([]termW(nil), e.c...)
		sort.Slice(c, func(i, j int) bool { return c[i].w > c[j].w || c[i].w == c[j].w && c[i].id < c[j].id })
		bag = append(bag, c[:min(len(c), max(window-len(bag), window/2))]...)
		for i := range bag {
			for j := i + 1; j < len(bag); j++ {
				a, b := bag[i].id, bag[j].id
				if a == b {
					continue
				}
				if a > b {
					a, b = b, a
				}
				co[uint64(a)<<32|uint64(b)]++
			}
		}
	}
	marg := make([]float64, n)
	var total float64
	for k, c := range co {
		marg[k>>32] += float64(c)
		marg[uint32(k)] += float64(c)
		total += 2 * float64(c)
	}
	// Context-distribution smoothing (0.75) for the column marginals.
	smooth := make([]float64, n)
	var sTotal float64
	for i, m := range marg {
		smooth[i] = math.Pow(m, 0.75)
		sTotal += smooth[i]
	}
	type entry struct {
		r, c int32
		v    float32
	}
	var es []entry
	for k, c := range co {
		if c < 2 {
			continue
		}
		a, b := int32(k>>32), int32(uint32(k))
		for _, rc := range [2][2]int32{{a, b}, {b, a}} {
			pmi := math.Log(float64(c) * total / (marg[rc[0]] * smooth[rc[1]] / sTotal * total))
			if pmi > 0 {
				es = append(es, entry{rc[0], rc[1], float32(pmi)})
			}
		}
	}
	sort.Slice(es, func(i, j int) bool { return es[i].r < es[j].r || es[i].r == es[j].r && es[i].c < es[j].c })
	m := &csr{n: n, rowPtr: make([]int, n+1), col: make([]int32, len(es)), val: make([]float32, len(es))}
	for i, e := range es {
		m.rowPtr[e.r+1]++
		m.col[i], m.val[i] = e.c, e.v
	}
	for i := range n {
		m.rowPtr[i+1] += m.rowPtr[i]
	}
	return m
}

// mul returns m × x for a dense n×l row-major x.
func (m *csr) mul(x []float32, l, workers int) []float32 {
	y := make([]float32, m.n*l)
	parallel(m.n, workers, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			yr := y[r*l : (r+1)*l]
			for k := m.rowPtr[r]; k < m.rowPtr[r+1]; k++ {
				axpy(yr, x[int(m.col[k])*l:int(m.col[k]+1)*l], m.val[k])
			}
		}
	})
	return y
}

// embedPPMI returns dim-dimensional term vectors: the top eigenvectors of
// the PPMI matrix scaled by the square roots of their eigenvalues, found
// by a randomized range finder with power iterations (unit rows; terms
// without co-occurrences get small random vectors).
func embedPPMI(m *csr, dim int, rng *rand.Rand, workers int) []float32 {
	l := dim + 16
	x := make([]float32, m.n*l)
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	for range 3 {
		x = m.mul(x, l, workers)
		orthonormalize(x, m.n, l, workers)
	}
	// Rayleigh–Ritz: T = Xᵀ M X, eigenvectors W; vectors X W √λ.
	mx := m.mul(x, l, workers)
	t := gram(x, mx, m.n, l, workers)
	vals, vecs := jacobiEigen(t, l)
	order := make([]int, l)
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return vals[order[a]] > vals[order[b]] })
	out := make([]float32, m.n*dim)
	parallel(m.n, workers, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			xr := x[r*l : (r+1)*l]
			for j := range dim {
				c := order[j]
				var s float64
				for k := range l {
					s += float64(xr[k]) * vecs[k*l+c]
				}
				out[r*dim+j] = float32(s * math.Sqrt(math.Max(vals[c], 0)))
			}
		}
	})
	for r := range m.n {
		row := out[r*dim : (r+1)*dim]
		if m.rowPtr[r+1] == m.rowPtr[r] || norm(row) == 0 {
			for j := range row {
				row[j] = float32(rng.NormFloat64())
			}
		}
		scale(row, 1/norm(row))
	}
	return out
}

// orthonormalize makes the l columns of the n×l matrix x orthonormal
// (Cholesky QR, twice for stability).
func orthonormalize(x []float32, n, l, workers int) {
	for range 2 {
		g := gram(x, x, n, l, workers)
		// Cholesky g = R Rᵀ (lower R); x ← x R⁻ᵀ.
		r := make([]float64, l*l)
		for i := range l {
			for j := 0; j <= i; j++ {
				s := g[i*l+j]
				for k := range j {
					s -= r[i*l+k] * r[j*l+k]
				}
				if i == j {
					r[i*l+i] = math.Sqrt(math.Max(s, 1e-12))
				} else {
					r[i*l+j] = s / r[j*l+j]
				}
			}
		}
		parallel(n, workers, func(lo, hi int) {
			row := make([]float64, l)
			for a := lo; a < hi; a++ {
				xr := x[a*l : (a+1)*l]
				for i := range l { // forward substitution: row R ᵀ = xr
					s := float64(xr[i])
					for k := range i {
						s -= row[k] * r[i*l+k]
					}
					row[i] = s / r[i*l+i]
				}
				for i := range l {
					xr[i] = float32(row[i])
				}
			}
		})
	}
}

// gram returns aᵀ b for n×l matrices.
func gram(a, b []float32, n, l, workers int) []float64 {
	parts := make([][]float64, workers)
	parallelIdx(n, workers, func(w, lo, hi int) {
		g := make([]float64, l*l)
		for r := lo; r < hi; r++ {
			ar, br := a[r*l:(r+1)*l], b[r*l:(r+1)*l]
			for i, x := range ar {
				if x == 0 {
					continue
				}
				gi := g[i*l : (i+1)*l]
				for j, y := range br {
					gi[j] += float64(x * y)
				}
			}
		}
		parts[w] = g
	})
	g := make([]float64, l*l)
	for _, p := range parts {
		for i, x := range p {
			g[i] += x
		}
	}
	for i := range l { // symmetrize
		for j := range i {
			s := (g[i*l+j] + g[j*l+i]) / 2
			g[i*l+j], g[j*l+i] = s, s
		}
	}
	return g
}

// jacobiEigen diagonalizes a symmetric l×l matrix: eigenvalues and the
// eigenvectors as columns.
func jacobiEigen(a []float64, l int) ([]float64, []float64) {
	v := make([]float64, l*l)
	for i := range l {
		v[i*l+i] = 1
	}
	for sweep := 0; sweep < 30; sweep++ {
		var off float64
		for p := range l {
			for q := p + 1; q < l; q++ {
				off += a[p*l+q] * a[p*l+q]
			}
		}
		if off < 1e-18 {
			break
		}
		for p := range l {
			for q := p + 1; q < l; q++ {
				apq := a[p*l+q]
				if math.Abs(apq) < 1e-30 {
					continue
				}
				theta := (a[q*l+q] - a[p*l+p]) / (2 * apq)
				t := math.Copysign(1, theta) / (math.Abs(theta) + math.Sqrt(theta*theta+1))
				c := 1 / math.Sqrt(t*t+1)
				s := t * c
				for k := range l {
					akp, akq := a[k*l+p], a[k*l+q]
					a[k*l+p], a[k*l+q] = c*akp-s*akq, s*akp+c*akq
				}
				for k := range l {
					apk, aqk := a[p*l+k], a[q*l+k]
					a[p*l+k], a[q*l+k] = c*apk-s*aqk, s*apk+c*aqk
				}
				for k := range l {
					vkp, vkq := v[k*l+p], v[k*l+q]
					v[k*l+p], v[k*l+q] = c*vkp-s*vkq, s*vkp+c*vkq
				}
			}
		}
	}
	vals := make([]float64, l)
	for i := range l {
		vals[i] = a[i*l+i]
	}
	return vals, v
}

// parallel splits [0,n) into contiguous ranges over workers.
func parallel(n, workers int, fn func(lo, hi int)) {
	parallelIdx(n, workers, func(_, lo, hi int) { fn(lo, hi) })
}

func parallelIdx(n, workers int, fn func(w, lo, hi int)) {
	workers = max(1, min(workers, n))
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := n*w/workers, n*(w+1)/workers
		wg.Add(1)
		go func() { defer wg.Done(); fn(w, lo, hi) }()
	}
	wg.Wait()
}

func axpy(y, x []float32, a float32) {
	x = x[:len(y)]
	for i := range y {
		y[i] += a * x[i]
	}
}

func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return s0 + s1 + s2 + s3
}

func norm(v []float32) float32 { return float32(math.Sqrt(float64(dot(v, v)))) }

func scale(v []float32, a float32) {
	for i := range v {
		v[i] *= a
	}
}
