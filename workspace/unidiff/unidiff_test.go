package unidiff

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/internal/testkit"
)

func TestParseHeader(t *testing.T) {
	tests := []struct {
		in   string
		want Header
		err  string
	}{
		{"@@ -1,3 +2,4 @@ func f() {", Header{1, 3, 2, 4, "func f() {"}, ""},
		{"@@ -5 +5 @@", Header{5, 1, 5, 1, ""}, ""},
		{"@@ -0,0 +1 @@", Header{0, 0, 1, 1, ""}, ""},
		{"@@ -1 +1 @", Header{}, "malformed hunk header"},
		{"@@ 1 +1 @@", Header{}, "malformed hunk header"},
		{"@@ -a +1 @@", Header{}, `bad range "a"`},
		{"@@ -1,-2 +1 @@", Header{}, "bad range"},
		{"@@-1 +1 @@", Header{}, "malformed hunk header"},
	}
	for _, tt := range tests {
		got, err := ParseHeader(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseHeader(%q) = %+v, %v; want error %q", tt.in, got, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseHeader(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
	}
}

func TestReadHunk(t *testing.T) {
	tests := []struct {
		name   string
		header string
		body   string
		want   []Line
		n      int
		err    string
	}{
		{"numbers", "@@ -3,3 +3,3 @@", " a\n-b\n+B\n c\n@@ -9 +9 @@\n", []Line{
			{Context, "a\n", 3, 3, false}, {Deleted, "b\n", 4, 0, false}, {Added, "B\n", 0, 4, false}, {Context, "c\n", 5, 5, false}}, 4, ""},
		{"an empty line is an empty context line", "@@ -1,2 +1,2 @@", "\n x\n", []Line{
			{Context, "\n", 1, 1, false}, {Context, "x\n", 2, 2, false}}, 2, ""},
		{"no newline after the body", "@@ -1 +1 @@", "-a\n+b\n\\ No newline at end of file\n", []Line{
			{Deleted, "a\n", 1, 0, false}, {Added, "b\n", 0, 1, true}}, 3, ""},
		{"no newline inside the body", "@@ -1 +1 @@", "-a\n\\ No newline at end of file\n+b\n", []Line{
			{Deleted, "a\n", 1, 0, true}, {Added, "b\n", 0, 1, false}}, 3, ""},
		{"last line without newline", "@@ -1 +1 @@", "-a\n+b", []Line{
			{Deleted, "a\n", 1, 0, false}, {Added, "b", 0, 1, false}}, 2, ""},
		{"bad line", "@@ -1,2 +1,2 @@", " a\n?b\n", nil, 1, `unexpected line in hunk: "?b"`},
		{"truncated", "@@ -1,3 +1,3 @@", " a\n", nil, 1, "expected 3 old and 3 new lines, found 1 and 1"},
		{"too long", "@@ -1 +1,2 @@", "-a\n-b\n+c\n+d\n", nil, 4, "expected 1 old and 2 new lines, found 2 and 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := ParseHeader(tt.header)
			if err != nil {
				t.Fatal(err)
			}
			got, n, err := ReadHunk(h, strings.SplitAfter(tt.body, "\n"))
			if n != tt.n {
				t.Errorf("consumed %d lines, want %d", n, tt.n)
			}
			if testkit.WantErr(t, err, tt.err) {
				return
			}
			if !reflect.DeepEqual(got.Lines, tt.want) {
				t.Fatalf("ReadHunk = %+v\nwant %+v", got.Lines, tt.want)
			}
		})
	}
}

func TestReadHunkErrorTypes(t *testing.T) {
	h := Header{OldStart: 1, OldLines: 1, NewStart: 1, NewLines: 2}
	_, _, err := ReadHunk(h, []string{" a\n", "x\n"})
	var le *LineError
	if !errors.As(err, &le) || le.Index != 1 || le.Line != "x" {
		t.Errorf("bad line: %#v", err)
	}
	var ce *CountError
	if _, _, err := ReadHunk(h, []string{"-a\n", "-b\n", "+c\n", "+d\n"}); !errors.As(err, &ce) || !ce.Long() {
		t.Errorf("too long: %v", err)
	}
	if _, _, err := ReadHunk(h, []string{" a\n"}); !errors.As(err, &ce) || ce.Long() {
		t.Errorf("truncated: %v", err)
	}
}
