package agent

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// fenced finds ```json blocks.
var fenced = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("(?s)```(?:json)?\\s*\\n(.*?)```") })

// envelope is spec/swarm-tools.md's JSON tool-call envelope.
type envelope struct {
	ToolCalls []struct {
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	} `json:"tool_calls"`
}

// ParseEnvelope finds a {"tool_calls": [...]} envelope in text, standalone
// or in a fenced json block. It returns the calls, the prose before the
// envelope and the text after it; ok is false when there is no envelope.
func ParseEnvelope(text string) (calls []ToolCall, before, after string, ok bool) {
	try := func(body string) ([]ToolCall, bool) {
		var env envelope
		if json.Unmarshal([]byte(strings.TrimSpace(body)), &env) != nil || env.ToolCalls == nil {
			return nil, false
		}
		out := make([]ToolCall, 0, len(env.ToolCalls))
		for i, c := range env.ToolCalls {
			args := c.Args
			if len(args) == 0 {
				args = json.RawMessage("{}")
			}
			out = append(out, ToolCall{ID: fmt.Sprintf("call_%d", i+1), Name: c.Name, Args: args})
		}
		return out, true
	}
	for _, m := range fenced().FindAllStringSubmatchIndex(text, -1) {
		if calls, ok := try(text[m[2]:m[3]]); ok {
			return calls, text[:m[0]], text[m[1]:], true
		}
	}
	// A standalone object: from the first '{' whose JSON decodes as an envelope.
	for i := strings.IndexByte(text, '{'); i >= 0; {
		dec := json.NewDecoder(strings.NewReader(text[i:]))
		var raw json.RawMessage
		if dec.Decode(&raw) == nil {
			if calls, ok := try(string(raw)); ok {
				end := i + int(dec.InputOffset())
				return calls, text[:i], text[end:], true
			}
		}
		j := strings.IndexByte(text[i+1:], '{')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return nil, text, "", false
}

// envelopeInstructions tells a model without native tool calling how to call tools.
func envelopeInstructions(schemas string) string {
	return `You call tools by writing a JSON object, alone or in a fenced json block:
{"tool_calls": [{"name": "<tool>", "args": {...}}]}
Several calls may go in one envelope. Write nothing after the envelope. Available tools and their JSON Schemas:
` + schemas
}
