package workspace

import (
	"sync"

	"github.com/autarch-dev/autarch/workspace/textsearch"
)

// foldLeads finds the first bytes of the two characters that fold to
// ASCII under (?i), K (E2 84 AA) and ſ (C5 BF), in one pass (SIMD where
// the CPU has it): foldsToASCII looked for each character in a pass of its
// own, a tenth of the secret scan of a file. Built once, read-only.
var foldLeads = sync.OnceValue(func() *textsearch.ByteFinder { return textsearch.NewByteFinder(0xE2, 0xC5) })
