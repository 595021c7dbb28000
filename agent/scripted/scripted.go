// Package scripted is an OpenAI-compatible model server that replays a
// script, for tests and end-to-end runs: chat completions (streaming and
// not) and embeddings. Each step may state expectations on the request it
// answers (offered tools, the last tool result) and gives the response
// (text and/or tool calls). A request that does not match fails loudly.
//
// Scripts are txtar archives: the comment describes the scenario, and each
// file named like "01-read.json" (sorted by name) is one step:
//
//	{"expect": {"tools": ["read_file"], "toolsExact": false, "lastToolResultContains": "...",
//	            "toolParams": {"read_file": ["path"]}, "notToolParams": {}},
//	 "text": "...", "tool_calls": [{"name": "read_file", "args": {...}}],
//	 "usage": {"prompt_tokens": 100, "completion_tokens": 10}, "delay_ms": 0}
package scripted

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"golang.org/x/tools/txtar"
)

// stepName matches the files that are steps: "01-read.json".
var stepName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9]+[^/]*\.json$`) })

// Step is one scripted model answer.
type Step struct {
	Name   string `json:"-"`
	Expect struct {
		// Tools must all be offered (and only them when ToolsExact).
		Tools      []string `json:"tools"`
		ToolsExact bool     `json:"toolsExact"`
		// NotTools must not be offered.
		NotTools []string `json:"notTools"`
		// ToolParams and NotToolParams name, by tool, parameters its
		// offered JSON Schema must (must not) have.
		ToolParams    map[string][]string `json:"toolParams"`
		NotToolParams map[string][]string `json:"notToolParams"`
		// MessagesContain must each appear in some message of the request.
		MessagesContain []string `json:"messagesContain"`
		// LastToolResultContains must appear in the last tool message.
		LastToolResultContains string `json:"lastToolResultContains"`
		// LastUserContains must appear in the last user message.
		LastUserContains string `json:"lastUserContains"`
		// SystemContains must appear in the system messages.
		SystemContains string `json:"systemContains"`
		// NoMessageContains must appear in no message of the request (a
		// sub-agent's request carries nothing of its parent's conversation).
		NoMessageContains string `json:"noMessageContains"`
	} `json:"expect"`
	Text      string `json:"text"`
	ToolCalls []struct {
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	} `json:"tool_calls"`
	Usage struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
	// DelayMS waits before answering (between stream chunks when streaming).
	DelayMS int `json:"delay_ms"`
	// FinishReason overrides the finish reason (e.g. "stop" with tool calls, as Ollama does).
	FinishReason string `json:"finish_reason"`
}

// Script is a sequence of steps.
type Script struct {
	Comment string
	Steps   []Step
}

// Parse reads a txtar script.
func Parse(data []byte) (*Script, error) {
	ar := txtar.Parse(data)
	s := &Script{Comment: strings.TrimSpace(string(ar.Comment))}
	files := slices.Clone(ar.Files)
	sort.SliceStable(files, func(i, j int) bool { return files[i].Name < files[j].Name })
	for _, f := range files {
		if !stepName().MatchString(f.Name) {
			continue // other files (workspace, configuration) belong to the caller
		}
		var st Step
		dec := json.NewDecoder(strings.NewReader(string(f.Data)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&st); err != nil {
			return nil, fmt.Errorf("step %s: %w", f.Name, err)
		}
		st.Name = f.Name
		s.Steps = append(s.Steps, st)
	}
	if len(s.Steps) == 0 {
		return nil, fmt.Errorf("script has no steps (files named NN-name.json)")
	}
	return s, nil
}

// Load reads a txtar script file.
func Load(path string) (*Script, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}
