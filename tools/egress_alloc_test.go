package tools

import (
	"fmt"
	"testing"
)

// TestValueSetAllocations checks that building the masked-value set of a
// workspace with many secret values (a module cache: thousands of test
// keys) does not allocate per form beyond the forms themselves: the set
// is built in every process, on the harvest that a search waits for.
func TestValueSetAllocations(t *testing.T) {
	values := make([]string, 1000)
	for i := range values {
		values[i] = fmt.Sprintf("s3cr3t-value-%06d-Xk9fQ2mZ", i)
	}
	allocs := testing.AllocsPerRun(3, func() { newValueSet(values, 0) })
	// valueForms: its slice, 2 hex, 2 upper-cased hex, 6 base64 strings
	// (with their buffers), the reversed text and the URL-alphabet forms.
	if per := allocs / float64(len(values)); per > 30 {
		t.Fatalf("%.1f allocations per value; want ≤ 30 (no replacer built per form, the maps sized once)", per)
	}
}
