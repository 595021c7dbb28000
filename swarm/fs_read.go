package swarm

import (
	"context"
	"unicode/utf8"

	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/workspace"
)

type fsReadParams struct {
	Reason   string `json:"reason"`
	Path     string `json:"path" jsonschema:"File path, relative to the project root"`
	MaxBytes *int   `json:"max_bytes,omitempty" jsonschema:"At most this many bytes of content (default 50000)"`
}

func newFSRead(b binding) tools.Tool {
	return define(b, tools.Traits{Effect: tools.EffectRead, Category: tools.CategoryReadOnly}, "fs_read", func(_ context.Context, sess *tools.Session, p fsReadParams) (any, error) {
		limit, err := positive(p.MaxBytes, 50000, "max_bytes")
		if err != nil {
			return nil, err
		}
		rel, data, res, ok := sess.ReadText(p.Path)
		if !ok {
			return res, nil
		}
		if workspace.IsBinary(data) {
			return nil, badInput("%s is a binary file; fs_read reads text", rel)
		}
		out := map[string]any{"path": rel, "size": len(data)}
		if len(data) > limit {
			cut := limit
			for cut > 0 && !utf8.RuneStart(data[cut]) {
				cut--
			}
			data = data[:cut]
			out["truncated"] = true
		}
		out["bytes"], out["content"] = len(data), string(data)
		return out, nil
	})
}
