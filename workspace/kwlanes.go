package workspace

import "unsafe"

// The keyword pass: the automaton (keywordAutomaton, secretrules.go) run
// over lanes of a text in lockstep. Each step of the automaton is a load
// that depends on the previous one, so independent lanes keep the CPU busy
// while one waits; on amd64 the steps are in assembly (kwSteps), which
// keeps the lanes' states and positions in registers (Go spilled them to
// the stack at every step, a store and a reload on each byte's chain).

// lanes is how many parts of a text the automaton runs through at once.
const lanes = 5

// kwChunk is how many steps of each lane one call of a stepper takes at
// most: each lane's hits of a call fit its kwChunk records.
const kwChunk = 1024

// kwRec is a hit as a stepper records it: the step, as the address of
// lane 0's byte at that step, and the state (an entry of kwTab: its row's
// address) the step went to.
type kwRec struct {
	p, s uint64
}

// kwRecs are the records of one call of a stepper, kwChunk per lane.
type kwRecs [lanes][kwChunk]kwRec

// kwLanes is where the lanes are between calls of a stepper: the end of
// each lane's next steps (an offset in the text; the lanes are equally
// far apart) and its state (a row's address, kwTab). The assembly reads
// it at fixed offsets: off, then s.
type kwLanes struct {
	off [lanes]int
	s   [lanes]uint64
}

// kwStepper runs n steps (n ≤ kwChunk) of every lane of st over data,
// records each step into an accepting state in rec, and returns how many
// records each lane has. kwStepsGo is the portable one; kwStepsFast is the
// assembly where there is one.
type kwStepper func(a *keywordAutomaton, data []byte, st *kwLanes, n int, rec *kwRecs) [lanes]int

// kwTab is the automaton's table for the lanes: rows of 1<<shift entries
// (one per byte class), each the address of the next state's row. A step
// is then one load at the state plus the byte's class (in the assembly,
// nothing else on the dependency chain from byte to byte). Rows of
// accepting states come first: a step into one reads an address below
// split, and needs no flag masked off before the next step. At split, the
// byte classes (for the assembly: one register for both), then the rows
// of the other states, the root's first.
type kwTab struct {
	// rows holds addresses into itself: a uint64 slice, which the garbage
	// collector does not read as pointers; it lives as long as the
	// automaton, and heap objects do not move.
	rows []uint64
	// base is the address of rows[0], split of the byte classes (after
	// the accepting rows).
	base, split uint64
	// rowState is the state (keywordAutomaton.accept's index) of each row.
	rowState []uint16
	// maxLen is the longest keyword: the automaton's state after a byte
	// depends on the last maxLen bytes only, so a lane that starts maxLen
	// bytes early (at the root) is in the right state where its part
	// begins.
	maxLen int
}

// fillTab derives the lanes' table from next and accept: accepting states'
// rows first, then the others, each kept in state order (hotFirst's order,
// so the root's and first bytes' rows stay together).
func (a *keywordAutomaton) fillTab(maxLen int) {
	states, width := len(a.accept), 1<<a.shift
	row := make([]int, states)
	nacc := 0
	for s := range states {
		if len(a.accept[s]) > 0 || a.fold[s] {
			nacc++
		}
	}
	t := kwTab{rows: make([]uint64, states*width+kwClassWords), rowState: make([]uint16, states), maxLen: maxLen}
	t.base = uint64(uintptr(unsafe.Pointer(&t.rows[0])))
	t.split = t.base + uint64(nacc*width)*8
	for i, c := range a.class {
		t.rows[nacc*width+i/8] |= uint64(c) << (i % 8 * 8)
	}
	addr := func(r int) uint64 {
		if r < nacc {
			return t.base + uint64(r*width)*8
		}
		return t.split + uint64(kwClassWords+(r-nacc)*width)*8
	}
	acc, other := 0, nacc
	for s := range states {
		if len(a.accept[s]) > 0 || a.fold[s] {
			row[s], acc = acc, acc+1
		} else {
			row[s], other = other, other+1
		}
		t.rowState[row[s]] = uint16(s)
	}
	for s := range states {
		r := t.rows[(addr(row[s])-t.base)/8:][:width]
		for c := range r {
			r[c] = addr(row[a.next[s<<a.shift|c]&^acceptBit])
		}
	}
	a.kwTab = t
}

// kwClassWords is the room of the byte classes in rows.
const kwClassWords = 256 / 8

// root is the state of the root (the first row after the classes).
func (a *keywordAutomaton) root() uint64 { return a.split + kwClassWords*8 }

// stateOf is the automaton's state at an entry of rows.
func (a *keywordAutomaton) stateOf(s uint64) uint16 {
	return a.rowState[(s-a.base)/8>>a.shift]
}

// step is one step of the automaton in Go: from state s over byte c.
func (a *keywordAutomaton) step(s uint64, c byte) uint64 {
	return a.rows[int((s-a.base)/8)+int(a.class[c])]
}

// lanesMin is the least text the lanes take: shorter, one lane runs it
// (each lane but the first reads maxLen bytes before its part).
func (a *keywordAutomaton) lanesMin() int { return lanes * 4 * max(a.maxLen, 8) }

// lanesHits appends the positions where keywords end in data, in order,
// with the automaton's state there (found: the lanes' buffers, emptied
// first).
func (a *keywordAutomaton) lanesHits(dst []kwHit, data []byte, found *[lanes][]kwHit) []kwHit {
	return a.lanesHitsWith(dst, data, found, kwStepsFast)
}

// lanesHitsWith is lanesHits with the stepper given (a test runs both).
//
// The text is cut into lanes of m bytes: lane l reads from l×(m−maxLen),
// and its hits count from maxLen bytes on (lane 0's from the start), where
// the previous lane's part ends; the last lane also reads the few bytes
// past the lockstep.
func (a *keywordAutomaton) lanesHitsWith(dst []kwHit, data []byte, found *[lanes][]kwHit, steps kwStepper) []kwHit {
	for l := range found {
		found[l] = found[l][:0]
	}
	if len(data) < a.lanesMin() {
		dst, _ = a.oneLane(dst, data, 0, a.root())
		return dst
	}
	w := a.maxLen
	m := (len(data) + (lanes-1)*w) / lanes &^ 3 // the assembly steps by four
	var start, own [lanes]int
	var st kwLanes
	for l := range lanes {
		st.s[l] = a.root()
		start[l] = l * (m - w)
		own[l] = start[l] + w
	}
	own[0] = 0
	rec, _ := a.recs.Get().(*kwRecs)
	if rec == nil {
		rec = new(kwRecs)
	}
	for done := 0; done < m; {
		n := min(kwChunk, m-done)
		for l := range lanes {
			st.off[l] = start[l] + done + n
		}
		counts := steps(a, data, &st, n, rec)
		lane0 := uint64(uintptr(unsafe.Pointer(&data[0]))) + uint64(start[0]+done)
		for l := range lanes {
			end := start[l] + done + n
			for _, r := range rec[l][:counts[l]] {
				if pos := end - n + int(r.p-lane0); pos >= own[l] {
					found[l] = append(found[l], kwHit{pos, a.stateOf(r.s)})
				}
			}
		}
		done += n
	}
	a.recs.Put(rec)
	last := lanes - 1
	found[last], _ = a.oneLane(found[last], data, start[last]+m, st.s[last])
	for l := range lanes {
		dst = append(dst, found[l]...)
	}
	return dst
}

// oneLane runs the automaton over data[from:] from state s, appending
// its hits to dst; it returns them and the state at the end.
func (a *keywordAutomaton) oneLane(dst []kwHit, data []byte, from int, s uint64) ([]kwHit, uint64) {
	for i := from; i < len(data); i++ {
		if s = a.step(s, data[i]); s < a.split {
			dst = append(dst, kwHit{i, a.stateOf(s)})
		}
	}
	return dst, s
}

// kwStepsGo is the portable stepper: kwSteps (kwlanes_amd64.s) in Go.
func kwStepsGo(a *keywordAutomaton, data []byte, st *kwLanes, n int, rec *kwRecs) [lanes]int {
	var counts [lanes]int
	p0, p1, p2, p3, p4 := data[st.off[0]-n:st.off[0]], data[st.off[1]-n:st.off[1]], data[st.off[2]-n:st.off[2]], data[st.off[3]-n:st.off[3]], data[st.off[4]-n:st.off[4]]
	s0, s1, s2, s3, s4 := st.s[0], st.s[1], st.s[2], st.s[3], st.s[4]
	split := a.split
	lane0 := uint64(uintptr(unsafe.Pointer(&data[0]))) + uint64(st.off[0]-n)
	for i := range n {
		s0, s1, s2, s3, s4 = a.step(s0, p0[i]), a.step(s1, p1[i]), a.step(s2, p2[i]), a.step(s3, p3[i]), a.step(s4, p4[i])
		if min(s0, s1, s2, s3, s4) >= split {
			continue
		}
		for l, s := range [lanes]uint64{s0, s1, s2, s3, s4} {
			if s < split {
				rec[l][counts[l]] = kwRec{lane0 + uint64(i), s}
				counts[l]++
			}
		}
	}
	st.s = [lanes]uint64{s0, s1, s2, s3, s4}
	return counts
}
