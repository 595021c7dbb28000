package tools

import (
	"regexp"
	"slices"
	"testing"
)

// FuzzHarvestLineFilter checks harvestLine's pre-checks (mayHarvest)
// against running every regexp on every line: the same values.
func FuzzHarvestLineFilter(f *testing.F) {
	for _, s := range []string{
		"postgres://admin:s3cretPass@db.example.com/app", "Authorization: Bearer abcdefgh12345678",
		"curl -H 'authorization: BASIC dXNlcjpwYXNzd29yZA=='", "https://x.example/?token=abc123&key=zzz",
		"TOKEN   0123456789abcdef", "to\u212aen abcdefgh12345678", "ba\u017fic abcdefgh12345678",
		"MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7", "a=b&c", "x?password=hunter2hunter2",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var want []string
		for _, re := range []*regexp.Regexp{urlPassword(), bearer(), queryPassword()} {
			for _, m := range re.FindAllStringSubmatch(s, -1) {
				want = append(want, m[1])
			}
		}
		if got := harvestLine(s); !slices.Equal(got, want) {
			t.Fatalf("harvestLine(%q) = %q, want %q", s, got, want)
		}
	})
}
