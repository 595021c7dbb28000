package workspace

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

// kwRec is a hit as a stepper records it: the step, counted back from the
// end of the call's steps (-n for the first of n), and the row offset of
// the state (kwTab) the step went to.
type kwRec struct {
	i, s int32
}

// kwRecs are the records of one call of a stepper, kwChunk per lane.
type kwRecs [lanes][kwChunk]kwRec

// kwLanes is where the lanes are between calls of a stepper: the end of
// each lane's next steps (an offset in the text) and its state (a row
// offset, kwTab). The assembly reads it at fixed offsets: off, then s.
type kwLanes struct {
	off [lanes]int
	s   [lanes]int
}

// kwStepper runs n steps (n ≤ kwChunk) of every lane of st over data,
// records each step into an accepting state in rec, and returns how many
// records each lane has. kwStepsGo is the portable one; kwStepsFast is the
// assembly where there is one.
type kwStepper func(a *keywordAutomaton, data []byte, st *kwLanes, n int, rec *kwRecs) [lanes]int

// kwTab is the automaton's table for the lanes: rows of 1<<shift entries
// (one per byte class), each the row offset (row×width, from tabBase) of
// the next state. Rows of accepting states come before tabBase, so a step
// into one reads a negative offset: the sign is the accept flag, and the
// offset needs no masking before the next step (one operation less on the
// dependency chain). The root's row is at tabBase (offset 0).
type kwTab struct {
	tab     []int32
	tabBase int
	// rowState is the state (keywordAutomaton.accept's index) of each row.
	rowState []uint16
	// nacc is the number of accepting states (rows before tabBase).
	nacc int
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
		if len(a.accept[s]) > 0 {
			nacc++
		}
	}
	t := kwTab{tabBase: nacc * width, rowState: make([]uint16, states), nacc: nacc, maxLen: maxLen}
	acc, other := 0, nacc
	for s := range states {
		if len(a.accept[s]) > 0 {
			row[s], acc = acc, acc+1
		} else {
			row[s], other = other, other+1
		}
		t.rowState[row[s]] = uint16(s)
	}
	t.tab = make([]int32, states*width)
	for s := range states {
		for c := range width {
			next := int(a.next[s<<a.shift|c] &^ acceptBit)
			t.tab[row[s]*width+c] = int32((row[next] - nacc) * width)
		}
	}
	a.kwTab = t
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
		dst, _ = a.oneLane(dst, data, 0, 0)
		return dst
	}
	w := a.maxLen
	m := (len(data) + (lanes-1)*w) / lanes
	var start, own [lanes]int
	var st kwLanes
	for l := range lanes {
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
		for l := range lanes {
			end := start[l] + done + n
			for _, r := range rec[l][:counts[l]] {
				if pos := end + int(r.i); pos >= own[l] {
					found[l] = append(found[l], kwHit{pos, a.rowState[int(r.s)>>a.shift+a.nacc]})
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

// oneLane runs the automaton over data[from:] from state s (a row offset),
// appending its hits to dst; it returns them and the state at the end.
func (a *keywordAutomaton) oneLane(dst []kwHit, data []byte, from, s int) ([]kwHit, int) {
	tab, base, class := a.tab, a.tabBase, &a.class
	for i := from; i < len(data); i++ {
		s = int(tab[base+s+int(class[data[i]])])
		if s < 0 {
			dst = append(dst, kwHit{i, a.rowState[s>>a.shift+a.nacc]})
		}
	}
	return dst, s
}

// kwStepsGo is the portable stepper: kwSteps (kwlanes_amd64.s) in Go.
func kwStepsGo(a *keywordAutomaton, data []byte, st *kwLanes, n int, rec *kwRecs) [lanes]int {
	tab, base, class := a.tab, a.tabBase, &a.class
	next := func(s int, c byte) int { return int(tab[base+s+int(class[c])]) }
	var counts [lanes]int
	p0, p1, p2, p3, p4 := data[st.off[0]-n:st.off[0]], data[st.off[1]-n:st.off[1]], data[st.off[2]-n:st.off[2]], data[st.off[3]-n:st.off[3]], data[st.off[4]-n:st.off[4]]
	s0, s1, s2, s3, s4 := st.s[0], st.s[1], st.s[2], st.s[3], st.s[4]
	for i := range n {
		s0, s1, s2, s3, s4 = next(s0, p0[i]), next(s1, p1[i]), next(s2, p2[i]), next(s3, p3[i]), next(s4, p4[i])
		if s0|s1|s2|s3|s4 >= 0 {
			continue
		}
		for l, s := range [lanes]int{s0, s1, s2, s3, s4} {
			if s < 0 {
				rec[l][counts[l]] = kwRec{int32(i - n), int32(s)}
				counts[l]++
			}
		}
	}
	st.s = [lanes]int{s0, s1, s2, s3, s4}
	return counts
}
