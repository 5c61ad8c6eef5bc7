package mcpgo

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// TestEncodeResult: what encodeResult writes for mcp-go's results is what
// json.Marshal writes, byte for byte (HTML and U+2028 escaped, raw
// structured content compacted, nil pointers as null).
func TestEncodeResult(t *testing.T) {
	text := mcp.NewToolResultText("<a href='x'>&</a>\u2028")
	structured := mcp.NewToolResultStructured(map[string]any{"b": "<b>", "a": 1}, "fallback")
	raw := &mcp.CallToolResult{
		Result:               mcp.Result{Meta: mcp.NewMetaFromMap(map[string]any{"k": "v"})},
		Content:              []mcp.Content{mcp.NewTextContent("x")},
		RawStructuredContent: json.RawMessage("{ \"z\" : [1, 2] }"),
		IsError:              true,
	}
	var none *mcp.CallToolResult
	for name, v := range map[string]any{
		"text": text, "text value": *text, "structured": structured,
		"raw structured": raw, "nil": none,
		"list": mcp.ListToolsResult{Tools: []mcp.Tool{mcp.NewTool("t&")}},
	} {
		got, err := encodeResult(v)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("%s: json.Marshal: %v", name, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s:\n got %s\nwant %s", name, got, want)
		}
	}
}
