package server

import (
	"context"

	"github.com/autarch-dev/autarch/editor"
)

// initFolder sends initialize for a client with the folder dir open
// (named name), its capabilities and its initializationOptions (nil:
// none); a refusal fails the test.
func (h *harness) initFolder(dir, name string, capabilities map[string]any, options any) initializeResult {
	h.t.Helper()
	uri := pathURI(dir)
	params := map[string]any{
		"processId": nil, "rootUri": uri, "workspaceFolders": []map[string]string{{"uri": uri, "name": name}},
		"capabilities": capabilities,
	}
	if options != nil {
		params["initializationOptions"] = options
	}
	var res initializeResult
	if err := h.call("initialize", params, &res); err != nil {
		h.t.Fatal(err)
	}
	return res
}

// setTestKey gives the session the API key the scripted model takes.
func (h *harness) setTestKey() {
	h.t.Helper()
	if err := h.call(editor.MethodSetAPIKey, editor.SetAPIKeyParams{APIKey: "test"}, nil); err != nil {
		h.t.Fatal(err)
	}
}

// initialized sends the initialized notification.
func (h *harness) initialized() {
	h.t.Helper()
	if err := h.client.Notify(context.Background(), "initialized", map[string]any{}); err != nil {
		h.t.Fatal(err)
	}
}
