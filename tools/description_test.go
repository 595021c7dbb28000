package tools

import (
	"os"
	"strings"
	"testing"
	"testing/fstest"
)

// A tool's description is its name.md; a tool without one fails when it
// is built, naming the tool.
func TestDescription(t *testing.T) {
	want, err := os.ReadFile("delete_file.md")
	if err != nil {
		t.Fatal(err)
	}
	if got := describe("delete_file"); got != string(want) || got == "" {
		t.Errorf("describe(delete_file) = %q, want delete_file.md's %q", got, want)
	}
	fsys := fstest.MapFS{"a_tool.md": {Data: []byte("Does a thing.\n")}}
	if got := Description(fsys, "a_tool"); got != "Does a thing.\n" {
		t.Errorf("Description(a_tool) = %q", got)
	}
	defer func() {
		if msg, _ := recover().(string); !strings.Contains(msg, "tool other_tool has no description") {
			t.Errorf("a tool without its .md: recovered %q, want a panic naming the tool", msg)
		}
	}()
	Description(fsys, "other_tool")
}
