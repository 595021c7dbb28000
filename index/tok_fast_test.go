package index

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestTokenizerMatchesTokens(t *testing.T) {
	inputs := []string{"parseHTTPHeader", "snake_case_name", "utf8Decode2 x", "the quick Brown fox", "ReadFile(path string)",
		"__init__ _x_ a_b__c HTTPServer ABC abcDEF x1y2 Über straße café_Menu", "δ := αβγ + 3.14e10; _", "A_B_C __ ___a"}
	if data, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src/net/http/server.go")); err == nil {
		inputs = append(inputs, string(data))
	}
	var tk tokenizer
	for _, in := range inputs {
		var want, got []string
		Tokens(in, func(s string) { want = append(want, s) })
		tk.tokens([]byte(in), func(b []byte) { got = append(got, string(b)) })
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("tokenizer(%.60q) = %.200q, want %.200q", in, strings.Join(got, " "), strings.Join(want, " "))
		}
	}
}
