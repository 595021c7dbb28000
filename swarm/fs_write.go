package swarm

import (
	"context"
	"fmt"
	"path"

	"github.com/autarch-dev/autarch/tools"
)

type fsWriteParams struct {
	Reason     string `json:"reason"`
	Path       string `json:"path" jsonschema:"File path, relative to the project root"`
	Content    string `json:"content" jsonschema:"The file's full new content (not a diff)"`
	CreateDirs *bool  `json:"create_dirs,omitempty" jsonschema:"Create missing parent directories (default true)"`
}

// MaxProposal bounds a proposal's content (NATS messages are at most 1 MB).
const MaxProposal = 900 << 10

func newFSWrite(b binding) tools.Tool {
	return define(b, tools.Traits{Effect: tools.EffectEdit, Category: tools.CategoryMutating}, "fs_write", func(ctx context.Context, sess *tools.Session, p fsWriteParams) (any, error) {
		rel, err := sess.Root().Clean(p.Path)
		if err != nil {
			return nil, badInput("%v", err)
		}
		if rel == "." {
			return nil, badInput("path is the project root: give a file's path")
		}
		if msg := WriteRefused(sess, rel); msg != "" {
			return nil, &Refusal{Err: "write_refused", Code: 403, Message: msg}
		}
		if msg := sess.CodeRuleBroken(rel, p.Content); msg != "" {
			return nil, &Refusal{Err: "write_refused", Code: 403, Message: "Guardrail: " + msg}
		}
		if len(p.Content) > MaxProposal {
			return nil, badInput("content is %d bytes; a proposal holds at most %d", len(p.Content), MaxProposal)
		}
		createDirs := p.CreateDirs == nil || *p.CreateDirs
		if dir := path.Dir(rel); !createDirs && dir != "." {
			if fi, err := sess.Root().Stat(dir); err != nil || !fi.IsDir() {
				return nil, badInput("directory %s does not exist and create_dirs is false: set create_dirs to true", dir)
			}
		}
		if fi, err := sess.Root().Stat(rel); err == nil && fi.IsDir() {
			return nil, badInput("%s is a directory: give a file's path", rel)
		}
		prop, err := b.s.Propose(ctx, Proposal{Agent: b.agent, Path: rel, Content: p.Content, CreateDirs: createDirs})
		if err != nil {
			return nil, err
		}
		return map[string]any{"queued": true, "id": prop.ID, "path": rel, "bytes": len(p.Content),
			"message": "proposal queued for the arbiter; nothing is written until it is approved (and writes are allowed)"}, nil
	})
}

// WriteRefused says why rel may not be written ("" when it may):
// Session.WriteRefused of the path as written and of where its symlinks
// lead (the secret gate judges names: a link notes.txt leading to .env is
// judged as .env). fs_write asks it of a proposal, and the orchestrator
// again when it applies one.
func WriteRefused(sess *tools.Session, rel string) string {
	if msg := sess.WriteRefused(rel); msg != "" {
		return msg
	}
	if real, err := sess.Root().Resolve(rel); err == nil && real != rel {
		if msg := sess.WriteRefused(real); msg != "" {
			return fmt.Sprintf("%s leads to %s: %s", rel, real, msg)
		}
	}
	return ""
}
