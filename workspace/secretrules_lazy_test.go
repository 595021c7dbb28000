package workspace

import (
	"regexp"
	"runtime"
	"testing"

	"github.com/autarch-dev/autarch/workspace/textsearch"
)

// TestRulesAllCompile: every rule's regexp and allowlist regexp compiles,
// with regexp and with textsearch (the rules compile lazily, when a line
// first reaches them, so a bad one would otherwise show only there).
func TestRulesAllCompile(t *testing.T) {
	check := func(name, src string) {
		t.Helper()
		if _, err := regexp.Compile(src); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if _, err := textsearch.Compile(src, true, false); err != nil {
			t.Errorf("%s: textsearch: %v", name, err)
		}
	}
	for _, a := range gitleaksAllow.regexes {
		check("gitleaks allowlist", a)
	}
	for _, r := range append(append([]ruleSpec(nil), localRules...), gitleaksRules...) {
		check(r.name, r.re)
		for _, a := range r.allow {
			for _, re := range a.regexes {
				check(r.name+" allowlist", re)
			}
		}
	}
}

// TestLazyRuleRegexp: a rule's DFA decides lines, and the regexp it
// compiles when one may match finds what the rule's source says.
func TestLazyRuleRegexp(t *testing.T) {
	l, _ := newLazyRegexp(`\bAKIA[0-9A-Z]{16}\b`)
	if l.mayMatch([]byte("no key on this line")) {
		t.Fatal("mayMatch on a line without a match")
	}
	if l.lines == nil {
		t.Fatal("the line DFA was not compiled")
	}
	line := []byte("id = AKIAZ7Q2MBV5XK3LWPT4")
	if !l.mayMatch(line) || l.get().Find(line) == nil {
		t.Fatal("the rule does not match its key")
	}
}

// TestRuleSearcherOutlivesGC: a rule's searcher, with the DFA states its
// lines built, is kept for the next line across garbage collections (a
// sync.Pool emptied at each made a search rebuild them several times).
func TestRuleSearcherOutlivesGC(t *testing.T) {
	l, _ := newLazyRegexp(`\bAKIA[0-9A-Z]{16}\b`)
	l.mayMatch([]byte("no key on this line"))
	if len(l.idle) != 1 {
		t.Fatalf("%d idle searchers after a line, want 1", len(l.idle))
	}
	s := <-l.idle
	l.idle <- s
	runtime.GC()
	runtime.GC()
	if len(l.idle) != 1 || <-l.idle != s {
		t.Fatal("the searcher was dropped by the garbage collector")
	}
}
