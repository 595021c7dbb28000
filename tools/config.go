package tools

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/autarch-dev/autarch/tools/websearch"
	"github.com/autarch-dev/autarch/workspace/trust"
)

// ConfigFile is the repository's one configuration file (YAML): hooks,
// guardrails, commands, workspace, sandbox and MCP servers. See README,
// "Repository configuration".
const ConfigFile = trust.ConfigFile

// Config is the content of ConfigFile.
type Config struct {
	// Hooks maps an event (pre_tool_use, post_llm_call, …; the legacy
	// post_edit) to the hooks it runs.
	Hooks      map[string][]HookSpec `yaml:"hooks"`
	Guardrails *Guardrails           `yaml:"guardrails"`
	Commands   CommandsConfig        `yaml:"commands"`
	Workspace  WorkspaceConfig       `yaml:"workspace"`
	Sandbox    SandboxConfig         `yaml:"sandbox"`
	MCP        MCPConfig             `yaml:"mcp"`
	// WebSearch names the web search provider (provider, url; never a key).
	WebSearch websearch.Settings `yaml:"web_search"`
	// Swarm configures the swarm tools (package swarm).
	Swarm SwarmConfig `yaml:"swarm"`
	// LanguageServers adds or replaces language servers of the code
	// intelligence tools, by name; each runs a process, so they count only
	// when the configuration is trusted (LoadProject drops them otherwise).
	LanguageServers map[string]LanguageServerConfig `yaml:"language_servers"`
}

// SwarmConfig is the swarm tools' rate limits: RateLimit for every tool,
// Tools per tool; each per agent (env AUTARCH_SWARM_RATE overrides).
type SwarmConfig struct {
	RateLimit *RateLimit           `yaml:"rate_limit"`
	Tools     map[string]RateLimit `yaml:"tools"`
}

// RateLimit is Calls calls per PerSec seconds (Calls 0: unlimited).
type RateLimit struct {
	Calls  int `yaml:"calls"`
	PerSec int `yaml:"per_sec"`
}

func (r RateLimit) check() error {
	if r.Calls < 0 || r.PerSec < 1 {
		return fmt.Errorf("calls %d per_sec %d: use calls 0 (unlimited) or more per 1 second or more, e.g. {calls: 30, per_sec: 60}", r.Calls, r.PerSec)
	}
	return nil
}

// HookSpec is one hook of ConfigFile.
type HookSpec struct {
	Name    string `yaml:"name"`
	Command string `yaml:"command"`
	// Matcher is a regular expression on the tool name.
	Matcher      string   `yaml:"matcher"`
	FilePatterns []string `yaml:"file_patterns"`
	// Timeout in seconds (default 30).
	Timeout int `yaml:"timeout"`
}

// CommandsConfig configures the shell tool.
type CommandsConfig struct {
	// Enabled false removes shell from every agent.
	Enabled *bool `yaml:"enabled"`
	// AllowedOnly refuses commands not classified safe or dev.
	AllowedOnly bool `yaml:"allowed_only"`
	// DefaultTimeout in seconds of a command that names none.
	DefaultTimeout int `yaml:"default_timeout"`
}

// Apply gives a role's registry the configuration's effect on tool sets:
// commands.enabled false removes shell and the tools that run commands
// (run_tests, run_lint, record_baseline, and read_lints, which runs the
// project's linters when no editor diagnostics exist); workspace.allow_delete gives
// pulsing (and the every-tool set, role "") delete_file.
func (c Config) Apply(reg *Registry, role string) (*Registry, error) {
	if c.Workspace.AllowDelete && (role == "pulsing" || role == "") && !reg.Has("delete_file") {
		if err := reg.Register(newDeleteFile()); err != nil {
			return nil, err
		}
	}
	if c.Commands.On() {
		return reg, nil
	}
	var keep []string
	for _, name := range reg.Names() {
		if !slices.Contains([]string{"shell", "run_tests", "run_lint", "record_baseline", "read_lints"}, name) {
			keep = append(keep, name)
		}
	}
	return reg.Filter(keep), nil
}

// Policy applies default_timeout to a command policy.
func (c CommandsConfig) Policy(p CommandPolicy) CommandPolicy {
	if c.DefaultTimeout > 0 {
		p.DefaultTimeout = time.Duration(c.DefaultTimeout) * time.Second
	}
	return p
}

// On reports whether commands are enabled (the default).
func (c CommandsConfig) On() bool { return c.Enabled == nil || *c.Enabled }

// WorkspaceConfig configures the file tools.
type WorkspaceConfig struct {
	// AllowDelete offers delete_file to agents that write.
	AllowDelete bool `yaml:"allow_delete"`
}

// SandboxConfig configures the command sandbox.
type SandboxConfig struct {
	// Network is when commands reach the network: preflight (only while
	// the environment is set up, the default), always or never.
	Network string `yaml:"network"`
}

// MCPConfig lists MCP servers.
type MCPConfig struct {
	Servers map[string]MCPServer `yaml:"servers"`
}

// MCPServer is one MCP server: a command (stdio) or a URL (streamable HTTP).
type MCPServer struct {
	// Type is stdio (the default when Command is set), http (streamable
	// HTTP, the default when only URL is set) or sse.
	Type    string            `yaml:"type" json:"type,omitempty"`
	Command string            `yaml:"command" json:"command,omitempty"`
	Args    []string          `yaml:"args" json:"args,omitempty"`
	Env     map[string]string `yaml:"env" json:"env,omitempty"`
	URL     string            `yaml:"url" json:"url,omitempty"`
	Headers map[string]string `yaml:"headers" json:"headers,omitempty"`
	// Timeout in seconds of one call (default 60).
	Timeout int `yaml:"timeout" json:"timeout,omitempty"`
	// Disabled keeps the server configured but not started.
	Disabled bool `yaml:"disabled" json:"disabled,omitempty"`
	// ReadOnlyTools are the server's tools (names on the server; "*" for
	// all) the user vouches for as read-only, for servers that set no
	// readOnlyHint: read-only agents get them too (001-68). Read from the
	// user's own mcp.json only (not config.yaml): a repository never loosens.
	ReadOnlyTools []string `yaml:"-" json:"readOnlyTools,omitempty"`
}

// MarksReadOnly reports whether ReadOnlyTools names a tool.
func (s MCPServer) MarksReadOnly(tool string) bool {
	return slices.Contains(s.ReadOnlyTools, tool) || slices.Contains(s.ReadOnlyTools, "*")
}

// Transport is stdio, http (streamable HTTP) or sse (the older HTTP+SSE).
func (s MCPServer) Transport() string {
	switch {
	case s.Type == "streamable-http" || s.Type == "streamableHttp":
		return "http"
	case s.Type != "":
		return s.Type
	case s.URL != "" && s.Command == "":
		return "http"
	}
	return "stdio"
}

// describe is what the server runs or reaches.
func (s MCPServer) describe() string {
	if s.URL != "" {
		return s.URL
	}
	return strings.TrimSpace(s.Command + " " + strings.Join(s.Args, " "))
}

// check reports what makes a server unusable.
func (s MCPServer) check() error {
	switch s.Transport() {
	case "stdio":
		if s.Command == "" {
			return errors.New("a stdio server needs a command")
		}
	case "http", "sse":
		if s.URL == "" {
			return fmt.Errorf("an %s server needs a url", s.Transport())
		}
	default:
		return fmt.Errorf("type %q: use stdio, http or sse", s.Type)
	}
	return nil
}

// legacyPostEditMatcher is what hooks.post_edit matches: the write tools.
const legacyPostEditMatcher = "^(edit_file|write_file|multi_edit|apply_patch)$"

// hookEvents are the events hooks can name in ConfigFile.
func hookEvents() []string {
	return []string{EventPreToolUse, EventPostToolUse, EventPreLLMCall, EventPostLLMCall,
		EventSessionStart, EventSessionEnd, EventError, EventBudgetWarning, EventContextCompress, EventAgentComplete}
}

// ParseConfig reads ConfigFile's content. A malformed file is an error
// naming the line and the key; unknown keys are returned as warnings.
func ParseConfig(data []byte) (Config, []string, error) {
	var c Config
	if len(bytes.TrimSpace(data)) == 0 {
		return c, nil, nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return Config{}, nil, fmt.Errorf("%s: %w", ConfigFile, err)
	}
	d := decoder{}
	if len(doc.Content) > 0 {
		if err := d.decode(doc.Content[0], reflect.ValueOf(&c).Elem(), ""); err != nil {
			return Config{}, nil, fmt.Errorf("%s: %w", ConfigFile, err)
		}
	}
	if err := c.validate(d.lines); err != nil {
		return Config{}, nil, fmt.Errorf("%s: %w", ConfigFile, err)
	}
	return c, d.warnings, nil
}

// validate checks what types cannot: events, patterns, policies.
func (c *Config) validate(lines map[string]int) error {
	at := func(key string) string {
		if l, ok := lines[key]; ok {
			return fmt.Sprintf("line %d: ", l)
		}
		return ""
	}
	for event, list := range c.Hooks {
		if event != "post_edit" && event != "error" && !slices.Contains(hookEvents(), event) {
			return fmt.Errorf("%skey hooks.%s: unknown event (use %s or the legacy post_edit)", at("hooks."+event), event, strings.Join(hookEvents(), ", "))
		}
		for i, h := range list {
			key := fmt.Sprintf("hooks.%s[%d]", event, i)
			if _, err := h.hook(event); err != nil {
				return fmt.Errorf("%skey %s: %w", at(key), key, err)
			}
		}
	}
	if c.Guardrails != nil {
		if err := c.Guardrails.compile(); err != nil {
			return fmt.Errorf("%skey guardrails: %w", at("guardrails"), err)
		}
		if q := c.Guardrails.QualityGates; q != nil {
			if err := q.check(); err != nil {
				return fmt.Errorf("%skey guardrails.quality_gates: %w", at("guardrails.quality_gates"), err)
			}
		}
	}
	switch c.Sandbox.Network {
	case "", NetworkPreflight, NetworkAlways, NetworkNever:
	default:
		return fmt.Errorf("%skey sandbox.network: %q: use preflight, always or never", at("sandbox.network"), c.Sandbox.Network)
	}
	if t := c.Commands.DefaultTimeout; t < 0 || t > ShellTimeoutMax {
		return fmt.Errorf("%skey commands.default_timeout: %d: use seconds from 1 to %d (0 or no key: %d)", at("commands.default_timeout"), t, ShellTimeoutMax, ShellTimeoutDefault)
	}
	if err := checkWebSearch(c.WebSearch); err != nil {
		key := "web_search"
		if c.WebSearch.Key != "" {
			key = "web_search.key"
		}
		return fmt.Errorf("%skey %s: %w", at(key), key, err)
	}
	if r := c.Swarm.RateLimit; r != nil {
		if err := r.check(); err != nil {
			return fmt.Errorf("%skey swarm.rate_limit: %w", at("swarm.rate_limit"), err)
		}
	}
	for name, r := range c.Swarm.Tools {
		if err := r.check(); err != nil {
			return fmt.Errorf("%skey swarm.tools.%s: %w", at("swarm.tools."+name), name, err)
		}
	}
	for name, s := range c.MCP.Servers {
		if err := s.check(); err != nil {
			return fmt.Errorf("%skey mcp.servers.%s: %w", at("mcp.servers."+name), name, err)
		}
	}
	for name, s := range c.LanguageServers {
		if err := s.check(); err != nil {
			return fmt.Errorf("%skey language_servers.%s: %w", at("language_servers."+name), name, err)
		}
	}
	return nil
}

// hook turns a spec into a Hook of event (post_edit: post_tool_use on the
// write tools).
func (h HookSpec) hook(event string) (Hook, error) {
	hk := Hook{Name: h.Name, Event: event, Matcher: h.Matcher, Files: h.FilePatterns, Command: h.Command, Timeout: h.Timeout}
	switch event {
	case "post_edit":
		hk.Event = EventPostToolUse
		if hk.Matcher == "" {
			hk.Matcher = legacyPostEditMatcher
		}
	case "error":
		hk.Event = EventError
	}
	return hk, hk.compile()
}

// HookList is the configuration's hooks, in event order.
func (c Config) HookList() []Hook {
	var out []Hook
	for _, event := range append(hookEvents(), "error", "post_edit") {
		for _, h := range c.Hooks[event] {
			hk, err := h.hook(event)
			if err == nil {
				out = append(out, hk)
			}
		}
	}
	return out
}

// decoder maps a YAML node onto a Go value, key by key, so that errors
// name the line and the key and unknown keys become warnings.
type decoder struct {
	warnings []string
	lines    map[string]int
}

func (d *decoder) decode(n *yaml.Node, v reflect.Value, path string) error {
	if d.lines == nil {
		d.lines = map[string]int{}
	}
	if path != "" {
		d.lines[path] = n.Line
	}
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil
	}
	name := path
	if name == "" {
		name = "the top level"
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		return d.decode(n, v.Elem(), path)
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return fmt.Errorf("line %d: key %s: expected a mapping of %s", n.Line, name, strings.Join(yamlKeys(v.Type()), ", "))
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, val := n.Content[i], n.Content[i+1]
			f, ok := fieldByTag(v, k.Value)
			if !ok {
				d.warnings = append(d.warnings, fmt.Sprintf("%s: line %d: unknown key %s (ignored; known: %s)", ConfigFile, k.Line, join(path, k.Value), strings.Join(yamlKeys(v.Type()), ", ")))
				continue
			}
			if err := d.decode(val, f, join(path, k.Value)); err != nil {
				return err
			}
		}
		return nil
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			return fmt.Errorf("line %d: key %s: expected a mapping", n.Line, name)
		}
		if v.IsNil() {
			v.Set(reflect.MakeMap(v.Type()))
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, val := n.Content[i], n.Content[i+1]
			elem := reflect.New(v.Type().Elem()).Elem()
			if err := d.decode(val, elem, join(path, k.Value)); err != nil {
				return err
			}
			v.SetMapIndex(reflect.ValueOf(k.Value).Convert(v.Type().Key()), elem)
		}
		return nil
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			return fmt.Errorf("line %d: key %s: expected a list", n.Line, name)
		}
		s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
		for i, item := range n.Content {
			if err := d.decode(item, s.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		v.Set(s)
		return nil
	}
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: key %s: expected %s", n.Line, name, kindName(v.Kind()))
	}
	if err := n.Decode(v.Addr().Interface()); err != nil {
		return fmt.Errorf("line %d: key %s: %q is not %s", n.Line, name, n.Value, kindName(v.Kind()))
	}
	return nil
}

// kindName says what a scalar of kind k is, for errors.
func kindName(k reflect.Kind) string {
	switch k {
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int64:
		return "a whole number"
	case reflect.String:
		return "a string"
	}
	return "a " + k.String()
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// fieldByTag finds the struct field whose yaml tag is key.
func fieldByTag(v reflect.Value, key string) (reflect.Value, bool) {
	t := v.Type()
	for i := range t.NumField() {
		if tag := yamlTag(t.Field(i)); tag != "" && tag == key {
			return v.Field(i), true
		}
	}
	return reflect.Value{}, false
}

func yamlTag(f reflect.StructField) string {
	if !f.IsExported() {
		return ""
	}
	tag, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	if tag == "-" {
		return ""
	}
	return tag
}

func yamlKeys(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		if tag := yamlTag(t.Field(i)); tag != "" {
			out = append(out, tag)
		}
	}
	return out
}
