package mcp

import (
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Text is what the model is given of a tool result: text content as it
// is, structured content as JSON (when no text says it already), images,
// audio and resources described.
func Text(res *sdk.CallToolResult) string {
	var parts []string
	hasText := false
	for _, c := range res.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			parts = append(parts, c.Text)
			hasText = true
		case *sdk.ImageContent:
			parts = append(parts, fmt.Sprintf("[image: %s, %d bytes]", c.MIMEType, len(c.Data)))
		case *sdk.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio: %s, %d bytes]", c.MIMEType, len(c.Data)))
		case *sdk.ResourceLink:
			parts = append(parts, describeResource("resource link", c.URI, c.Name, c.MIMEType, c.Description))
		case *sdk.EmbeddedResource:
			parts = append(parts, embedded(c.Resource))
		default:
			b, _ := json.Marshal(c)
			parts = append(parts, fmt.Sprintf("[content: %s]", b))
		}
	}
	if res.StructuredContent != nil && !hasText {
		b, err := json.Marshal(res.StructuredContent)
		if err == nil {
			parts = append(parts, string(b))
		}
	}
	if len(parts) == 0 {
		return "(no content)"
	}
	return strings.Join(parts, "\n")
}

func embedded(r *sdk.ResourceContents) string {
	if r == nil {
		return "[resource]"
	}
	if r.Text != "" {
		return fmt.Sprintf("[resource %s (%s)]\n%s", r.URI, r.MIMEType, r.Text)
	}
	return describeResource("resource", r.URI, "", r.MIMEType, fmt.Sprintf("%d bytes", len(r.Blob)))
}

func describeResource(kind, uri, name, mime, desc string) string {
	var extra []string
	for _, s := range []string{name, mime, desc} {
		if s != "" {
			extra = append(extra, s)
		}
	}
	if len(extra) == 0 {
		return fmt.Sprintf("[%s: %s]", kind, uri)
	}
	return fmt.Sprintf("[%s: %s (%s)]", kind, uri, strings.Join(extra, ", "))
}
