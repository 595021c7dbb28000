package index

// vecSlab is how many chunks' vectors one slab of a vecStore holds.
const vecSlab = 1 << 14

// vecStore holds dim int8s per chunk in slabs that are never copied as it
// grows (a flat slice doubling while it grows holds two copies for a
// moment: hundreds of MB on a big tree). The first slab may be a saved
// index's mapped vectors, of any length.
type vecStore struct {
	dim   int
	first int // chunks in slabs[0]
	slabs [][]int8
	n     int
}

// newVecStore holds n zero vectors, or base (n vectors) when given.
func newVecStore(dim, n int, base []int8) vecStore {
	v := vecStore{dim: dim}
	if base != nil {
		v.slabs, v.first, v.n = [][]int8{base}, n, n
		return v
	}
	for range n {
		v.append(nil)
	}
	return v
}

// at is chunk id's vector.
func (v *vecStore) at(id uint32) []int8 {
	i := int(id)
	if i >= v.n {
		return nil
	}
	if i < v.first {
		return v.slabs[0][i*v.dim : (i+1)*v.dim : (i+1)*v.dim]
	}
	i -= v.first
	s := v.slabs[1+i/vecSlab]
	j := i % vecSlab
	return s[j*v.dim : (j+1)*v.dim : (j+1)*v.dim]
}

// append adds a chunk's vector (nil: zeros).
func (v *vecStore) append(vec []int8) {
	if len(v.slabs) == 0 {
		v.slabs = [][]int8{nil} // slabs[0] is the (empty) base
	}
	last := v.slabs[len(v.slabs)-1]
	if len(v.slabs) == 1 || len(last) == vecSlab*v.dim {
		v.slabs = append(v.slabs, make([]int8, 0, vecSlab*v.dim))
		last = v.slabs[len(v.slabs)-1]
	}
	if vec == nil {
		last = append(last, make([]int8, v.dim)...)
	} else {
		last = append(last, vec[:v.dim]...)
	}
	v.slabs[len(v.slabs)-1] = last
	v.n++
}

// len is the number of vectors.
func (v *vecStore) len() int { return v.n }
