package tools

import (
	"embed"
	"fmt"
	"io/fs"
)

// descriptions are this package's tool descriptions, one NAME.md a tool.
//
//go:embed *.md
var descriptions embed.FS

// Description is the description of the tool name: the file name.md of
// fsys, the descriptions a tool package embeds (//go:embed *.md), one file
// a tool, named as the tool. A tool without its file is a programming
// error: it panics when the tool is built, which every registry test does.
func Description(fsys fs.FS, name string) string {
	b, err := fs.ReadFile(fsys, name+".md")
	if err != nil {
		panic(fmt.Sprintf("tool %s has no description: %v", name, err))
	}
	return string(b)
}

// describe is the description of this package's tool name.
func describe(name string) string { return Description(descriptions, name) }
