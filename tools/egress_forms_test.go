package tools

import (
	"context"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/workspace"
)

// formValues are values with every shape a form depends on: each length
// around the 3-byte groups of base64 and the 8-byte keys, bytes that give
// '+' and '/' in base64 (and those that do not), hex with and without
// letters, palindromes, NUL bytes and non-ASCII text.
func formValues(rng *rand.Rand) []string {
	vals := []string{
		"hunter2hunter2xyz", "hunter2hunter2abc", "12345678", "1234567890123", "abcdcba_abcdcba",
		"\x00\x00\x00\x00\x00\x00\x00\x00\x00", "\x00\x00\x00\x00\x00\x00\x00\x00x", "ключ-секрет-пароль",
		"\xfb\xff\xbf\xfb\xff\xbf\xfb\xff\xbf", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ",
	}
	for n := 1; n <= 40; n++ {
		for range 6 {
			b := make([]byte, n)
			for i := range b {
				b[i] = byte(rng.UintN(256))
			}
			vals = append(vals, string(b))
			const printable = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=+/."
			for i := range b {
				b[i] = printable[rng.IntN(len(printable))]
			}
			vals = append(vals, string(b))
		}
	}
	return vals
}

// TestFormsMatchValueForms: each form appendForm writes is the one the
// old valueForms made, formLen is its length, and formsOf files exactly
// the old needles (at least 8 bytes, key not zero) under their first 8
// bytes.
func TestFormsMatchValueForms(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, v := range formValues(rng) {
		var made []string
		for k := range formKind(formCount) {
			f := string(appendForm([]byte("pre"), v, k))[3:]
			if formLen(len(v), k) != len(f) {
				t.Errorf("formLen(%d, %d) = %d, the form has %d bytes", len(v), k, formLen(len(v), k), len(f))
			}
			made = append(made, f)
			// isForm finds the form at the start of a text, and not
			// with any one byte changed nor cut short.
			if !isForm([]byte(f+"tail"), v, k) {
				t.Errorf("isForm(%q + tail, %q, %d) = false", f, v, k)
			}
			for i := range len(f) {
				b := []byte(f)
				b[i] ^= 0x20
				if isForm(b, v, k) || isForm([]byte(f[:i]), v, k) {
					t.Errorf("isForm(%q with byte %d changed or cut there, %q, %d) = true", f, i, v, k)
				}
			}
		}
		var filed []string
		formsOf(v, func(key uint64, k formKind) {
			f := made[k]
			if len(f) < 8 || key != leUint64(f) {
				t.Errorf("%q: form %d %q filed under %x", v, k, f, key)
			}
			filed = append(filed, f)
		})
		var want []string
		for _, f := range valueForms(v) {
			if len(f) >= 8 && leUint64(f) != 0 {
				want = append(want, f)
			}
		}
		for _, f := range want {
			if !slices.Contains(made, f) {
				t.Errorf("%q: appendForm never makes the form %q", v, f)
			}
		}
		slices.Sort(filed)
		slices.Sort(want)
		if !slices.Equal(slices.Compact(filed), slices.Compact(want)) {
			t.Errorf("%q: filed forms %q, want %q", v, filed, want)
		}
	}
}

func leUint64(s string) uint64 {
	var k uint64
	for i := 7; i >= 0; i-- {
		k = k<<8 | uint64(s[i])
	}
	return k
}

// TestValueSetMatchesOracle compares the value set with the old one (each
// form a string in a table: oracleSet) on a real corpus: the values
// harvested from $(go env GOROOT)/src's secret files (test keys and
// certificates), random values, values given twice and values sharing
// their first bytes or begin others; searched in GOROOT/src test files, which hold test
// keys, and in a text made of every form of every value, whole, cut short
// by a byte, folded and side by side. Every span must be the same.
func TestValueSetMatchesOracle(t *testing.T) {
	src := filepath.Join(runtime.GOROOT(), "src")
	harvested := harvestRoot(context.Background(), workspace.DefaultGate(), src)
	if len(harvested) < 100 {
		t.Fatalf("only %d values harvested from %s; want its test keys", len(harvested), src)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	vals := slices.Clone(harvested)
	vals = append(vals, formValues(rng)...)
	for i := range 200 {
		vals = append(vals, fmt.Sprintf("sk-shared-prefix-%04d-%x", i, rng.Uint64()))
	}
	for _, v := range harvested[:100] {
		if len(v) >= 12 {
			vals = append(vals, v[:len(v)-3]) // a value that begins another
		}
	}
	vals = append(vals, vals[:50]...) // given twice
	e := &Egress{}
	e.AddValues(vals...)
	set := e.set.Load()
	oracle := newOracleSet(set.values)
	t.Logf("%d values (%d distinct), %d needles", len(vals), len(set.values), len(oracle.all()))

	var forms strings.Builder
	for i, v := range set.values {
		for _, f := range valueForms(v) {
			forms.WriteString("<" + f + "> ")
			if len(f) > 9 {
				forms.WriteString("<" + f[:len(f)-1] + "> " + f[1:] + " ")
				forms.WriteString(f[:len(f)/2] + "\n" + f[len(f)/2:] + "\n")
			}
			if i%7 == 0 {
				forms.WriteString(f) // side by side with the next
			}
		}
	}
	compare := func(name string, hay []byte) {
		got, want := set.find(hay), oracle.find(hay)
		if !slices.Equal(got, want) {
			t.Errorf("%s: spans %v, want %v", name, got, want)
		}
	}
	compare("every form", []byte(forms.String()))
	compare("every form, folded", []byte(unfolded(forms.String())))

	files := 0
	filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, "_test.go") {
			return nil
		}
		if !strings.Contains(p, "/crypto/") && !strings.Contains(p, "/net/") && !strings.Contains(p, "/encoding/") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		files++
		compare(p, data)
		return nil
	})
	if files < 100 {
		t.Fatalf("only %d test files searched", files)
	}
}

// unfolded is what mask searches in text: text without its line breaks.
func unfolded(text string) string {
	return strings.NewReplacer("\n", "", "\r", "").Replace(text)
}

// TestValueSetBuildAllocations: filing the forms of many values (a module
// cache's thousands of test keys) allocates the table's arrays, not a
// string or a slice per form, and only when something is searched.
func TestValueSetBuildAllocations(t *testing.T) {
	values := make([]string, 1000)
	for i := range values {
		values[i] = fmt.Sprintf("s3cr3t-value-%06d-Xk9fQ2mZ", i)
	}
	if allocs := testing.AllocsPerRun(3, func() { newValueSet(values, 0) }); allocs > 2 {
		t.Errorf("making the set: %.0f allocations; want ≤ 2 (the forms are filed at the first search)", allocs)
	}
	hay := []byte("nothing secret here at all, just text")
	if allocs := testing.AllocsPerRun(3, func() { newValueSet(values, 0).find(hay) }); allocs > 20 {
		t.Errorf("making the set and searching once: %.0f allocations for %d values; want ≤ 20", allocs, len(values))
	}
}
