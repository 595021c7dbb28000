package workflow

import "github.com/autarch-dev/autarch/tools"

// AsksInProse exposes asksInProse to the external tests.
var AsksInProse = asksInProse

// LangServersOf exposes the language servers of a running workflow.
func (e *Engine) LangServersOf(id string) *tools.LangServers { return e.langServersOf(id) }
