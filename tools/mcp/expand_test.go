package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/autarch-dev/autarch/tools"
)

func TestExpand(t *testing.T) {
	env := map[string]string{"TOKEN": "t0k", "HOST": "127.0.0.1"}
	getenv := func(k string) string { return env[k] }
	tests := []struct{ in, want, wantErr string }{
		{in: "Bearer ${TOKEN}", want: "Bearer t0k"},
		{in: "http://${HOST}:1/${TOKEN}", want: "http://127.0.0.1:1/t0k"},
		{in: "no refs, $TOKEN and $${x stay", want: "no refs, $TOKEN and $${x stay"},
		{in: "Bearer ${MISSING}", wantErr: "header Authorization uses ${MISSING}, which is not set"},
	}
	for _, tt := range tests {
		got, err := expand(tt.in, "header Authorization", getenv)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%q: err = %v", tt.in, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%q = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	cfg, err := expanded(tools.MCPServer{Command: "${HOST}", Args: []string{"--t=${TOKEN}"}, Env: map[string]string{"K": "${TOKEN}"}}, getenv)
	if err != nil || cfg.Command != "127.0.0.1" || cfg.Args[0] != "--t=t0k" || cfg.Env["K"] != "t0k" {
		t.Errorf("expanded = %+v, %v", cfg, err)
	}
}

// A streamable HTTP server behind a bearer token: the token comes from the
// environment through ${VAR} in the configured headers.
func TestBearerHeaderFromEnvironment(t *testing.T) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "guarded", Version: "1"}, nil)
	sdk.AddTool(srv, &sdk.Tool{Name: "hello", Description: "greets"}, func(context.Context, *sdk.CallToolRequest, noArgs) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "hello"}}}, nil, nil
	})
	mcpHandler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer s3cret" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		mcpHandler.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close) // after the managers close their streams (cleanups run last-in first-out)
	cfg := tools.MCPServer{Type: "http", URL: hs.URL, Headers: map[string]string{"Authorization": "Bearer ${AUTARCH_TEST_MCP_TOKEN}"}, Timeout: 5}

	t.Setenv("AUTARCH_TEST_MCP_TOKEN", "")
	m := userServers(t, map[string]tools.MCPServer{"guarded": cfg})
	if _, errs := m.Tools(t.Context(), "pulsing"); len(errs) != 1 || !strings.Contains(errs[0].Error(), "header Authorization uses ${AUTARCH_TEST_MCP_TOKEN}, which is not set") {
		t.Errorf("unset token: %v", errs)
	}

	t.Setenv("AUTARCH_TEST_MCP_TOKEN", "wrong")
	m = userServers(t, map[string]tools.MCPServer{"guarded": cfg})
	if _, errs := m.Tools(t.Context(), "pulsing"); len(errs) != 1 || !strings.Contains(errs[0].Error(), "nauthorized") {
		t.Errorf("wrong token: %v", errs)
	}

	t.Setenv("AUTARCH_TEST_MCP_TOKEN", "s3cret")
	m = userServers(t, map[string]tools.MCPServer{"guarded": cfg})
	h := newHarness(t, m, "pulsing", tools.ModeYolo)
	if res := h.call("mcp_guarded_hello", `{"reason": "r"}`); res.Failed || res.Output != "hello" {
		t.Errorf("call = %+v", res)
	}
}
