package orchestrate

import (
	"encoding/json"

	"github.com/autarch-dev/autarch/tools"
)

// toolSpecs are spec/swarm-tools.md's tools offered to agents as
// functions: name, description, JSON Schema of the arguments.
var toolSpecs = []struct{ name, desc, schema string }{
	{"fs_list", "List files of the swarm's worktree. pattern is a glob, or a regex with the prefix regex:. Result: {files[], count}.",
		`{"type":"object","properties":{"dir":{"type":"string","default":"."},"pattern":{"type":"string"},"max_results":{"type":"integer","default":200}}}`},
	{"fs_read", "Read a file. Result: {path, bytes, content}.",
		`{"type":"object","properties":{"path":{"type":"string"},"max_bytes":{"type":"integer","default":50000}},"required":["path"]}`},
	{"search_text", "Regex search across files. Result: {matches[]: {file, line, text}}.",
		`{"type":"object","properties":{"pattern":{"type":"string"},"dir":{"type":"string","default":"."},"max_matches":{"type":"integer","default":200}},"required":["pattern"]}`},
	{"fs_write", "Propose writing a file: the FULL content wanted on disk. Queued for the arbiter; applied only when approved and writes are allowed.",
		`{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"},"create_dirs":{"type":"boolean","default":true}},"required":["path","content"]}`},
	{"ctx_put", "Store a value in the shared context (findings: key AgentName.task, value {ok, task, data, ts, agent}). Result: {ok, key, version} or {ok:false, error:\"version_mismatch\", version}.",
		`{"type":"object","properties":{"key":{"type":"string"},"value":{},"mode":{"type":"string","enum":["set","if_absent","if_version"]},"expected_version":{"type":"integer"}},"required":["key","value"]}`},
	{"ctx_get", "Read a value of the shared context. Result: {key, value, version}.",
		`{"type":"object","properties":{"key":{"type":"string"}},"required":["key"]}`},
	{"ctx_keys", "List the shared context's keys. Result: {keys: [...]}.",
		`{"type":"object","properties":{"prefix":{"type":"string"}}}`},
	{"coord_enqueue", "Enqueue a work item. Result: {enqueued: true, id, kind}.",
		`{"type":"object","properties":{"kind":{"type":"string"},"payload":{"type":"object"}},"required":["kind"]}`},
	{"coord_next", "Take the next queued item (FIFO) with a lease. Result: {item: {id, kind, payload, lease_until, claimed_by} | null}.",
		`{"type":"object","properties":{"lease_sec":{"type":"integer","default":180}}}`},
	{"coord_status", "Peek at the queue. Result: {length, front, counts: {queued, claimed, done}, phase}.",
		`{"type":"object","properties":{}}`},
	{"coord_claim", "Claim a specific item by id, with a lease. Result: {id, kind, lease_until, claimed_by} or {error, code}.",
		`{"type":"object","properties":{"id":{"type":"string"},"lease_sec":{"type":"integer"}},"required":["id"]}`},
	{"coord_complete", "Mark a claimed item done. Result: {id, status: \"done\"} or {error, code}.",
		`{"type":"object","properties":{"id":{"type":"string"},"result":{}},"required":["id"]}`},
	{"coord_extend", "Extend the lease of an item you hold. Result: {id, lease_until} or {error, code}.",
		`{"type":"object","properties":{"id":{"type":"string"},"extend_sec":{"type":"integer"}},"required":["id","extend_sec"]}`},
}

// schemas are the functions offered to an agent (without fs_write in a
// read-only round).
func schemas(readOnly bool) []tools.FunctionSchema {
	var out []tools.FunctionSchema
	for _, s := range toolSpecs {
		if readOnly && isWrite(s.name) {
			continue
		}
		out = append(out, tools.FunctionSchema{Type: "function", Function: tools.Function{
			Name: s.name, Description: s.desc, Parameters: json.RawMessage(s.schema)}})
	}
	return out
}

// offered reports whether tool is one of the swarm's tools of the round.
func offered(tool string, readOnly bool) bool {
	for _, s := range toolSpecs {
		if s.name == tool {
			return !readOnly || !isWrite(tool)
		}
	}
	return false
}

// envelopeInstructions tells a model without native tool calling how to
// call the tools (spec/swarm-tools.md's JSON envelope).
func envelopeInstructions(readOnly bool) string {
	b, _ := json.Marshal(schemas(readOnly))
	return `You call tools by writing a JSON object, alone or in a fenced json block:
{"tool_calls": [{"name": "<tool>", "args": {...}}]}
Several calls may go in one envelope. Write nothing after the envelope. The tools and their JSON Schemas:
` + string(b) + "\n"
}
