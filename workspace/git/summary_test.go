package git

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/autarch-dev/autarch/internal/testkit"
)

func TestParseSummary(t *testing.T) {
	tests := []struct {
		in      string
		want    Summary
		wantErr string
	}{
		{in: "feat(auth): implement JWT token validation", want: Summary{Type: "feat", Scope: "auth", Description: "implement JWT token validation"}},
		{in: "fix: handle nil map", want: Summary{Type: "fix", Description: "handle nil map"}},
		{in: "refactor(core)!: drop v1 API", want: Summary{Type: "refactor", Scope: "core", Breaking: true, Description: "drop v1 API"}},
		{in: "docs!: rewrite", want: Summary{Type: "docs", Breaking: true, Description: "rewrite"}},
		{in: "  chore(deps): bump x  \n", want: Summary{Type: "chore", Scope: "deps", Description: "bump x"}},
		{in: "test(api): cover errors\n\n- a\n- b\n", want: Summary{Type: "test", Scope: "api", Description: "cover errors", Body: "- a\n- b"}},
		{in: "perf(index): faster\r\nbody", want: Summary{Type: "perf", Scope: "index", Description: "faster", Body: "body"}},
		{in: "style(ui/button): é accents ok", want: Summary{Type: "style", Scope: "ui/button", Description: "é accents ok"}},
		{in: "build: x", want: Summary{Type: "build", Description: "x"}},
		{in: "ci: x", want: Summary{Type: "ci", Description: "x"}},
		{in: "", wantErr: "commit summary is empty"},
		{in: "   \n\n", wantErr: "commit summary is empty"},
		{in: "implement login", wantErr: "is not a Conventional Commit"},
		{in: "feat implement login", wantErr: "is not a Conventional Commit"},
		{in: "feat:implement login", wantErr: "is not a Conventional Commit"},
		{in: "feat: ", wantErr: "is not a Conventional Commit"},
		{in: "feat:  two spaces", wantErr: "needs a description"},
		{in: "Feat: capital", wantErr: `commit type "Feat" is not accepted: use one of feat, fix, docs`},
		{in: "feature: nope", wantErr: `commit type "feature" is not accepted`},
		{in: "wip(x): nope", wantErr: `commit type "wip" is not accepted`},
		{in: "feat(): empty scope", wantErr: "malformed scope"},
		{in: "feat( x): spaced scope", wantErr: "malformed scope"},
		{in: "feat(a(b)): nested", wantErr: "malformed scope"},
		{in: "feat(x: unclosed", wantErr: "malformed scope"},
		{in: "feat!(x): bang first", wantErr: "is not a Conventional Commit"},
		{in: ": no type", wantErr: "is not a Conventional Commit"},
		{in: "feat: tab\there", wantErr: "control character"},
		{in: "feat: nul\x00", wantErr: "NUL"},
		{in: "feat: \xff", wantErr: "UTF-8"},
		{in: "feat: " + strings.Repeat("x", 95), wantErr: "101 characters; keep it to 100"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseSummary(tt.in)
			if testkit.WantErr(t, err, tt.wantErr) {
				return
			}
			if got != tt.want {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestSummaryMessage(t *testing.T) {
	s, err := ParseSummary("feat(x): y\nbody line")
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Message(); got != "feat(x): y\n\nbody line\n" {
		t.Fatalf("message = %q", got)
	}
}

// FuzzParseSummary: never panics; an accepted summary has an accepted type,
// a header that re-parses to itself, and a message git can store.
func FuzzParseSummary(f *testing.F) {
	for _, s := range []string{"feat(auth): x", "fix: y\n\nbody", "refactor(a)!: z", "nope", "feat(: x", "feat(x)!: ", "ci:  x", "docs(\x00): x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		s, err := ParseSummary(in)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error message")
			}
			return
		}
		if !slices.Contains(CommitTypes(), s.Type) {
			t.Fatalf("accepted type %q", s.Type)
		}
		h := s.Header()
		if strings.ContainsAny(h, "\n\r\x00") || utf8.RuneCountInString(h) > MaxSummaryLen || s.Description == "" {
			t.Fatalf("accepted header %q", h)
		}
		again, err := ParseSummary(h)
		if err != nil {
			t.Fatalf("header %q of accepted %q does not re-parse: %v", h, in, err)
		}
		again.Body = s.Body
		if again != s {
			t.Fatalf("re-parse %+v != %+v", again, s)
		}
		if m := s.Message(); strings.Contains(m, "\x00") || !utf8.ValidString(m) || !strings.HasPrefix(m, h+"\n") {
			t.Fatalf("message %q", m)
		}
	})
}

func TestValidateName(t *testing.T) {
	tests := []struct {
		name    string
		wantErr string
	}{
		{"feature-x", ""},
		{"fix_123.v2", ""},
		{"A", ""},
		{strings.Repeat("a", 100), ""},
		{"", "is empty"},
		{strings.Repeat("a", 101), "101 characters long"},
		{"-x", "start with a letter or digit"},
		{".x", "start with a letter or digit"},
		{"a..b", `must not contain ".."`},
		{"a.lock", `".lock"`},
		{"a.", `must not end in "."`},
		{"a/b", "character '/' is not allowed"},
		{"a b", "character ' ' is not allowed"},
		{"a~1", "character '~' is not allowed"},
		{"a:b", "character ':' is not allowed"},
		{"héllo", "non-ASCII"},
		{"a@{b", "character '@' is not allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateName(tt.name)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if ValidatePulseID(tt.name) != nil {
					t.Fatal("pulse id rules differ")
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), "use 1–100 ASCII letters") {
				t.Fatalf("err = %v, want %q and the accepted form", err, tt.wantErr)
			}
		})
	}
}
