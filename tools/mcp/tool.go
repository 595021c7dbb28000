package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/autarch-dev/autarch/tools"
)

// Tool is one server tool as an Autarch tool (the spec's MCPToolAdapter):
// named mcp_<server>_<tool>, its arguments validated against the tool's
// input schema (plus the engine's reason), sensitive whatever its
// arguments, read-only for the engine only when the server says so.
type Tool struct {
	srv      *Server
	name     string
	orig     string
	desc     string
	schema   json.RawMessage
	resolved *jsonschema.Resolved
	readOnly bool
}

// newTool adapts a server tool.
func newTool(s *Server, t *sdk.Tool) (*Tool, error) {
	raw, err := json.Marshal(t.InputSchema)
	if err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	var schema jsonschema.Schema
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &schema); err != nil {
			return nil, fmt.Errorf("input schema: %w", err)
		}
	}
	schema.Schema = "" // draft-07 and 2020-12 validate alike for what servers declare
	if schema.Type == "" {
		schema.Type = "object"
	}
	if schema.Properties == nil {
		schema.Properties = map[string]*jsonschema.Schema{}
	}
	if _, taken := schema.Properties["reason"]; !taken {
		schema.Properties["reason"] = &jsonschema.Schema{Type: "string",
			Description: "Required. A short, human-readable statement of the logical purpose of this tool call (not passed to the server)."}
		schema.Required = append(schema.Required, "reason")
	}
	resolved, err := schema.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	out, err := json.Marshal(&schema)
	if err != nil {
		return nil, err
	}
	desc := strings.TrimSpace(t.Description)
	if desc == "" {
		desc = t.Title
	}
	desc = strings.TrimSpace(fmt.Sprintf("%s\n\n(Tool %q of the MCP server %s.)", desc, t.Name, s.name))
	return &Tool{srv: s, name: toolName(s.name, t.Name), orig: t.Name, desc: desc, schema: out, resolved: resolved,
		readOnly: t.Annotations != nil && t.Annotations.ReadOnlyHint || s.origin == OriginUser && s.cfg.MarksReadOnly(t.Name)}, nil
}

func (t *Tool) Name() string            { return t.name }
func (t *Tool) Description() string     { return t.desc }
func (t *Tool) Schema() json.RawMessage { return t.schema }

// Original is the tool's name on its server.
func (t *Tool) Original() string { return t.orig }

// ReadOnly reports the server's readOnlyHint, or the user's marking of
// the tool as read-only in their mcp.json (readOnlyTools).
func (t *Tool) ReadOnly() bool { return t.readOnly }

// Kind is ReadOnly for tools the server annotates readOnlyHint, Write
// otherwise (recorded, not run, in dry-run).
func (t *Tool) Kind() tools.Kind {
	if t.readOnly {
		return tools.ReadOnly
	}
	return tools.Write
}

// Traits: a tool the server annotates readOnlyHint reads; any other may
// change anything (it runs on the server's side).
func (t *Tool) Traits() tools.Traits {
	if t.readOnly {
		return tools.Traits{Effect: tools.EffectRead, Category: tools.CategoryReadOnly}
	}
	return tools.Traits{Effect: tools.EffectExecute, Category: tools.CategoryMutating}
}

// Touches: a server's arguments name no files Autarch can read.
func (t *Tool) Touches(json.RawMessage) []tools.Touch { return nil }

// Sensitive: every MCP tool asks for confirmation (spec), whatever its
// arguments.
func (t *Tool) Sensitive(json.RawMessage) bool { return true }

// Validate checks the arguments against the tool's input schema.
func (t *Tool) Validate(args json.RawMessage) error { return tools.ValidateArgs(t.resolved, args) }

// Run calls the tool on its server, without the engine's reason.
func (t *Tool) Run(ctx context.Context, _ *tools.Session, args json.RawMessage) (tools.Result, error) {
	var m map[string]any
	if len(bytes.TrimSpace(args)) > 0 {
		if err := json.Unmarshal(args, &m); err != nil {
			return tools.ErrorResult("invalid arguments: " + err.Error()), nil
		}
	}
	delete(m, "reason")
	res, err := t.srv.call(ctx, t.orig, m)
	if err != nil {
		return tools.ErrorResult(err.Error()), nil
	}
	return tools.Result{Output: Text(res), Failed: res.IsError}, nil
}
