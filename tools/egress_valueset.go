package tools

import (
	"encoding/binary"
	"math/bits"
	"sync"
)

// valueSet holds the secret values and finds their forms (formsOf) in a
// text. No form is kept as a string: each is filed under its first 8
// bytes in an open-addressing table, with its value and kind, and is
// compared byte by byte only where a text holds those 8 bytes. A bit filter in
// front of the table lets most offsets of a text go without a probe.
//
// The table is built at the first search, not when values are added: a
// set replaced before anything was filtered (values added in several
// steps while a session starts) costs nothing.
type valueSet struct {
	version uint64
	values  []string
	once    sync.Once
	t       *formTable
}

// formTable files the forms of a set's values.
type formTable struct {
	// filter has a bit set for each key filed (filterShift picks it).
	filter      []uint64
	filterShift uint
	// keys and heads are the slots: a key (0: empty slot) and the first
	// of its forms; size is their length (any, not a power of two).
	keys  []uint64
	heads []int32
	// form i is kind forms[i]&31 of values[forms[i]>>5]; next[i] is the
	// next form with the same key (-1: none), the longest first.
	forms []uint32
	next  []int32
}

const (
	hashMul   = 0x9E3779B97F4A7C15
	filterMul = 0xC2B2AE3D27D4EB4F
)

func newValueSet(values []string, version uint64) *valueSet {
	return &valueSet{version: version, values: values}
}

// table builds the set's form table once.
func (s *valueSet) table() *formTable {
	s.once.Do(func() { s.t = newFormTable(s.values) })
	return s.t
}

// newFormTable files every form of values. It allocates its arrays
// (sized for formCount forms a value), nothing per value or form.
func newFormTable(values []string) *formTable {
	most := formCount * len(values)
	fbits := uint(6) // 16 bits per form: about one offset in 16 that holds none gets past
	for 1<<fbits < 16*most {
		fbits++
	}
	t := &formTable{
		filter:      make([]uint64, 1<<(fbits-6)),
		filterShift: 64 - fbits,
		keys:        make([]uint64, max(most+most/2, 16)), // at most two thirds full
		heads:       make([]int32, max(most+most/2, 16)),
		forms:       make([]uint32, 0, most),
		next:        make([]int32, 0, most),
	}
	for vi, v := range values {
		formsOf(v, func(key uint64, k formKind) { t.add(values, key, uint32(vi)<<5|uint32(k)) })
	}
	return t
}

// add files form (value index << 5 | kind) under key.
func (t *formTable) add(values []string, key uint64, form uint32) {
	i := int32(len(t.forms))
	t.forms, t.next = append(t.forms, form), append(t.next, -1)
	b := (key * filterMul) >> t.filterShift
	t.filter[b>>6] |= 1 << (b & 63)
	h := t.slot(key)
	for t.keys[h] != 0 && t.keys[h] != key {
		if h++; h == len(t.keys) {
			h = 0
		}
	}
	if t.keys[h] == 0 {
		t.keys[h], t.heads[h] = key, i
		return
	}
	// Longest first: the widest match masks the most. A form goes
	// before those of its length (a chain of like tokens grows at once).
	l := t.formLen(values, i)
	prev, j := int32(-1), t.heads[h]
	for j >= 0 && t.formLen(values, j) > l {
		prev, j = j, t.next[j]
	}
	t.next[i] = j
	if prev < 0 {
		t.heads[h] = i
	} else {
		t.next[prev] = i
	}
}

// slot is where key's probe starts.
func (t *formTable) slot(key uint64) int {
	h, _ := bits.Mul64(key*hashMul, uint64(len(t.keys)))
	return int(h)
}

// formLen is the length of form i.
func (t *formTable) formLen(values []string, i int32) int {
	f := t.forms[i]
	return formLen(len(values[f>>5]), formKind(f&31))
}

// find returns the merged spans of hay holding a form of a value.
func (s *valueSet) find(hay []byte) [][2]int {
	if len(s.values) == 0 || len(hay) < 8 {
		return nil
	}
	t := s.table()
	if len(t.forms) == 0 {
		return nil
	}
	var spans [][2]int
	filter, shift := t.filter, t.filterShift
	for i := 0; i+8 <= len(hay); i++ {
		k := binary.LittleEndian.Uint64(hay[i:])
		if b := (k * filterMul) >> shift; filter[b>>6]&(1<<(b&63)) == 0 {
			continue
		}
		h := t.slot(k)
		for t.keys[h] != 0 && t.keys[h] != k {
			if h++; h == len(t.keys) {
				h = 0
			}
		}
		if t.keys[h] == 0 {
			continue
		}
		for j := t.heads[h]; j >= 0; j = t.next[j] {
			v, kind := s.values[t.forms[j]>>5], formKind(t.forms[j]&31)
			if !isForm(hay[i:], v, kind) {
				continue
			}
			end := i + formLen(len(v), kind)
			if l := len(spans); l > 0 && spans[l-1][1] >= i {
				spans[l-1][1] = max(spans[l-1][1], end)
			} else {
				spans = append(spans, [2]int{i, end})
			}
			break
		}
	}
	return spans
}
