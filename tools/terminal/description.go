package terminal

import (
	"embed"

	"github.com/autarch-dev/autarch/tools"
)

// descriptions are this package's tool descriptions, one NAME.md a tool.
//
//go:embed *.md
var descriptions embed.FS

// describe is the description of this package's tool name.
func describe(name string) string { return tools.Description(descriptions, name) }
