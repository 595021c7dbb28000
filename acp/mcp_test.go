package acp

import (
	"context"
	"github.com/autarch-dev/autarch/app"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/autarch-dev/autarch/editor"
)

// TestFolderMCPServers: the MCP servers later sessions of a folder pass
// join the folder's set (one engine serves the folder), keyed by name; a
// different definition under a known name is refused with nothing added.
func TestFolderMCPServers(t *testing.T) {
	a := testAgent(t)
	var mu sync.Mutex
	made := map[string]*MCPServers{}
	open := a.cfg.Session
	a.cfg.Session = func(folder string, servers *MCPServers, ui editor.Client, document func(string) (string, bool)) *app.Session {
		mu.Lock()
		made[folder] = servers
		mu.Unlock()
		return open(folder, servers, ui, document)
	}
	conn := initializeSDK(t, a)
	ctx := context.Background()
	repo := gitRepo(t)
	stdio := func(name, command string, args ...string) sdk.McpServer {
		return sdk.McpServer{Stdio: &sdk.McpServerStdio{Name: name, Command: command, Args: args, Env: []sdk.EnvVariable{}}}
	}
	http := func(name, url string) sdk.McpServer {
		return sdk.McpServer{Http: &sdk.McpServerHttpInline{Name: name, Type: "http", Url: url, Headers: []sdk.HttpHeader{}}}
	}
	first, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: repo, McpServers: []sdk.McpServer{stdio("fs", "mcp-fs", "--root", "/r")}})
	if err != nil {
		t.Fatal(err)
	}
	names := func() string {
		mu.Lock()
		defer mu.Unlock()
		if len(made) != 1 {
			t.Fatalf("%d folders opened, want 1", len(made))
		}
		return strings.Join(slices.Sorted(maps.Keys(made[repo].All())), ",")
	}
	for _, c := range []struct {
		name    string
		call    func() error
		refused string // "" when accepted
		want    string // the folder's servers after
	}{
		{"a second session adds its servers", func() error {
			_, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: repo, McpServers: []sdk.McpServer{http("gh", "https://example.com/mcp")}})
			return err
		}, "", "fs,gh"},
		{"the same definition again", func() error {
			_, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: repo, McpServers: []sdk.McpServer{stdio("fs", "mcp-fs", "--root", "/r"), http("docs", "https://example.com/docs")}})
			return err
		}, "", "docs,fs,gh"},
		{"session/load adds its servers", func() error {
			_, err := conn.LoadSession(ctx, sdk.LoadSessionRequest{SessionId: first.SessionId, Cwd: repo, McpServers: []sdk.McpServer{stdio("lint", "mcp-lint")}})
			return err
		}, "", "docs,fs,gh,lint"},
		{"another definition of a known name, nothing added", func() error {
			_, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: repo, McpServers: []sdk.McpServer{stdio("new", "mcp-new"), stdio("fs", "mcp-fs", "--root", "/elsewhere")}})
			return err
		}, `MCP server "fs" is already defined for this folder as stdio "mcp-fs --root /r", and this session passes stdio "mcp-fs --root /elsewhere"`, "docs,fs,gh,lint"},
		{"another transport under a known name", func() error {
			_, err := conn.ResumeSession(ctx, sdk.ResumeSessionRequest{SessionId: first.SessionId, Cwd: repo, McpServers: []sdk.McpServer{http("lint", "https://example.com/lint")}})
			return err
		}, `and this session passes http https://example.com/lint`, "docs,fs,gh,lint"},
		{"a name twice in one request", func() error {
			_, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: repo, McpServers: []sdk.McpServer{stdio("x", "a"), stdio("x", "b")}})
			return err
		}, `mcpServers names "x" twice`, "docs,fs,gh,lint"},
	} {
		err := c.call()
		switch {
		case c.refused == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.refused != "" && (err == nil || !strings.Contains(errText(err), c.refused)):
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.refused)
		}
		if got := names(); got != c.want {
			t.Errorf("%s: the folder's servers are %s, want %s", c.name, got, c.want)
		}
	}
}

// TestFolderMCPServersCountSessions: a server stays in the folder's set
// while an open session that passed it does; when the last one closes it
// leaves the set and the wiring is told to stop it (a session that failed
// to open counts for nothing), and closing the agent has every server
// started for the folder stopped.
func TestFolderMCPServersCountSessions(t *testing.T) {
	a := testAgent(t)
	var mu sync.Mutex
	var servers *MCPServers
	var released []string
	closed := 0
	open := a.cfg.Session
	a.cfg.Session = func(folder string, m *MCPServers, ui editor.Client, document func(string) (string, bool)) *app.Session {
		mu.Lock()
		servers = m
		mu.Unlock()
		m.OnRelease(func(names []string) {
			mu.Lock()
			defer mu.Unlock()
			released = append(released, names...)
		})
		m.OnClose(func() {
			mu.Lock()
			defer mu.Unlock()
			closed++
		})
		return open(folder, m, ui, document)
	}
	conn := initializeSDK(t, a)
	ctx := context.Background()
	repo := gitRepo(t)
	stdio := func(name string) sdk.McpServer {
		return sdk.McpServer{Stdio: &sdk.McpServerStdio{Name: name, Command: "mcp-" + name, Args: []string{}, Env: []sdk.EnvVariable{}}}
	}
	group := []sdk.McpServer{stdio("fs"), stdio("lint")}
	newSession := func(list ...sdk.McpServer) sdk.SessionId {
		t.Helper()
		res, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: repo, McpServers: list})
		if err != nil {
			t.Fatal(err)
		}
		return res.SessionId
	}
	closeSession := func(id sdk.SessionId) {
		t.Helper()
		if _, err := conn.CloseSession(ctx, sdk.CloseSessionRequest{SessionId: id}); err != nil {
			t.Fatal(err)
		}
	}
	state := func() (set, gone string) {
		mu.Lock()
		defer mu.Unlock()
		return strings.Join(slices.Sorted(maps.Keys(servers.All())), ","), strings.Join(released, ",")
	}
	first, second := newSession(group...), newSession(group...)
	newSession(stdio("docs"))
	if _, err := conn.LoadSession(ctx, sdk.LoadSessionRequest{SessionId: "acp-0badc0de", Cwd: repo, McpServers: []sdk.McpServer{stdio("ghost")}}); err == nil {
		t.Fatal("session/load of an unknown session succeeded")
	}
	for _, c := range []struct {
		name      string
		act       func()
		set, gone string
	}{
		{"three sessions open (a load that failed counts for nothing)", func() {}, "docs,fs,lint", "ghost"},
		{"one of two sessions passing the group closed", func() { closeSession(first) }, "docs,fs,lint", "ghost"},
		{"the other closed", func() { closeSession(second) }, "docs", "ghost,fs,lint"},
		{"a new session passes the group again", func() { second = newSession(group...) }, "docs,fs,lint", "ghost,fs,lint"},
		{"session/resume of the closed first passes the group", func() {
			if _, err := conn.ResumeSession(ctx, sdk.ResumeSessionRequest{SessionId: first, Cwd: repo, McpServers: group}); err != nil {
				t.Fatal(err)
			}
		}, "docs,fs,lint", "ghost,fs,lint"},
		{"the new one closed, the resumed one keeps them", func() { closeSession(second) }, "docs,fs,lint", "ghost,fs,lint"},
		{"the resumed one closed", func() { closeSession(first) }, "docs", "ghost,fs,lint,fs,lint"},
	} {
		c.act()
		if set, gone := state(); set != c.set || gone != c.gone {
			t.Errorf("%s: the folder's servers are %q and %q were released, want %q and %q", c.name, set, gone, c.set, c.gone)
		}
	}
	a.Close()
	mu.Lock()
	defer mu.Unlock()
	if closed != 1 {
		t.Errorf("the folder's servers were closed %d times when the agent closed, want once", closed)
	}
	if n := len(servers.All()); n != 0 {
		t.Errorf("%d servers left in the set after the agent closed", n)
	}
}
