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
// lane 0's byte at that step, and the state (an entry of kwTab) the step
// went to.
type kwRec struct {
	p, s uint64
}

// kwRecs are the records of one call of a stepper, kwChunk per lane.
type kwRecs [lanes][kwChunk]kwRec

// kwLanes is where the lanes are between calls of a stepper: the end of
// each lane's next steps (an offset in the text; the lanes are equally
// far apart) and its state (an entry of kwTab). The assembly reads it at
// fixed offsets: off, then s.
type kwLanes struct {
	off [lanes]int
	s   [lanes]uint64
}

// kwStepper runs n steps (n ≤ kwChunk) of every lane of st over data,
// records each step into an accepting state in rec, and returns how many
// records each lane has. kwStepsGo is the portable one; kwStepsFast is the
// assembly where there is one.
type kwStepper func(a *keywordAutomaton, data []byte, st *kwLanes, n int, rec *kwRecs) [lanes]int

// kwTab is the automaton's table for the lanes: rows of 1<<shift 16-bit
// entries (shift at least 2), one per byte class, each naming the next
// state's row by where it starts: entry e is the row at byte e×8 of rows
// (index e×4). A step is then one load, at the byte's class entry plus
// 8×e, which x86 addresses in one instruction: nothing else is on the
// dependency chain from byte to byte. With two bytes an entry, the rows
// a text visits stay in the nearer caches (the whole table, ~300 KB for
// the gate's keywords, fits a core's L2; with 64-bit addresses it was
// ~1 MB and did not).
//
// Rows of non-accepting states come first, from row 0 (the root); rows
// of accepting states start at entry kwAccept, so a step into one is an
// entry with its top bit set (one compare with a constant). Between them
// the table has unused rows.
type kwTab struct {
	rows []uint16
	// classAt is, for each byte, the address of its class's entry in row
	// 0 (&rows[class]): the assembly's one load per byte.
	classAt *[256]uint64
	// tabShift is log2 of the rows' width.
	tabShift uint
	// rowState is the state (keywordAutomaton.accept's index) of each
	// row.
	rowState []uint16
	// maxLen is the longest keyword: the automaton's state after a byte
	// depends on the last maxLen bytes only, so a lane that starts maxLen
	// bytes early (at the root) is in the right state where its part
	// begins.
	maxLen int
	// lanes is whether the states fit the table's entries (up to 2048
	// rows of either kind with 64 classes): when not, hits come from one
	// pass over next (no rule set of ours comes near).
	lanes bool
}

// kwAccept is the first entry of an accepting state's row (kwTab).
const kwAccept = 0x8000

// fillTab derives the lanes' table from next and accept: non-accepting
// states' rows from row 0, accepting states' rows from entry kwAccept,
// each kept in state order (hotFirst's order, so the root's and first
// bytes' rows stay together).
func (a *keywordAutomaton) fillTab(maxLen int) {
	states := len(a.accept)
	sh := max(a.shift, 2)
	width := 1 << sh
	accRow := kwAccept * 4 / width // the first accepting row
	accepting := func(s int) bool { return len(a.accept[s]) > 0 || a.fold[s] }
	row := make([]int, states)
	nacc, non := 0, 0
	for s := range states {
		if accepting(s) {
			row[s], nacc = accRow+nacc, nacc+1
		} else {
			row[s], non = non, non+1
		}
	}
	t := kwTab{tabShift: sh, maxLen: maxLen}
	if states == 0 || accepting(0) || non > accRow || (accRow+nacc)*width/4 > 1<<16 {
		a.kwTab = t // too many states for 16-bit entries: one pass (lanesHitsWith)
		return
	}
	t.lanes = true
	rows := accRow + nacc
	t.rows = make([]uint16, rows*width)
	t.rowState = make([]uint16, rows)
	for s := range states {
		t.rowState[row[s]] = uint16(s)
		r := t.rows[row[s]*width:][:width]
		for c := range 1 << a.shift {
			r[c] = uint16(row[a.next[s<<a.shift|c]&^acceptBit] * width / 4)
		}
	}
	t.classAt = new([256]uint64)
	base := uint64(uintptr(unsafe.Pointer(&t.rows[0])))
	for i, c := range a.class {
		t.classAt[i] = base + uint64(c)*2
	}
	a.kwTab = t
}

// root is the state of the root (row 0).
func (a *keywordAutomaton) root() uint64 { return 0 }

// stateOf is the automaton's state at an entry of rows.
func (a *keywordAutomaton) stateOf(s uint64) uint16 {
	return a.rowState[s<<2>>a.tabShift]
}

// step is one step of the automaton in Go: from state s over byte c.
func (a *keywordAutomaton) step(s uint64, c byte) uint64 {
	return uint64(a.rows[int(s)*4+int(a.class[c])])
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
	if !a.lanes {
		return a.nextHits(dst, data)
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

// nextHits appends the positions where keywords end in data, with the
// states there: one pass over next, for an automaton whose states do not
// fit the lanes' table.
func (a *keywordAutomaton) nextHits(dst []kwHit, data []byte) []kwHit {
	s := 0
	for i, c := range data {
		t := a.next[s<<a.shift|int(a.class[c])]
		if s = int(t &^ acceptBit); t&acceptBit != 0 {
			dst = append(dst, kwHit{i, uint16(s)})
		}
	}
	return dst
}

// oneLane runs the automaton over data[from:] from state s, appending
// its hits to dst; it returns them and the state at the end.
func (a *keywordAutomaton) oneLane(dst []kwHit, data []byte, from int, s uint64) ([]kwHit, uint64) {
	for i := from; i < len(data); i++ {
		if s = a.step(s, data[i]); s >= kwAccept {
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
	lane0 := uint64(uintptr(unsafe.Pointer(&data[0]))) + uint64(st.off[0]-n)
	for i := range n {
		s0, s1, s2, s3, s4 = a.step(s0, p0[i]), a.step(s1, p1[i]), a.step(s2, p2[i]), a.step(s3, p3[i]), a.step(s4, p4[i])
		if max(s0, s1, s2, s3, s4) < kwAccept {
			continue
		}
		for l, s := range [lanes]uint64{s0, s1, s2, s3, s4} {
			if s >= kwAccept {
				rec[l][counts[l]] = kwRec{lane0 + uint64(i), s}
				counts[l]++
			}
		}
	}
	st.s = [lanes]uint64{s0, s1, s2, s3, s4}
	return counts
}
