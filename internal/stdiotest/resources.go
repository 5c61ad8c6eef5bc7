package stdiotest

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// doc is DocURI's text.
const doc = "# Features\n\nThe Go stand-in for the reference everything server: tools, resources, prompts.\n"

func addResources(server *mcp.Server) {
	server.AddResource(&mcp.Resource{URI: DocURI, Name: "features.md", MIMEType: "text/markdown"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: DocURI, MIMEType: "text/markdown", Text: doc}}}, nil
	})
	const prefix = "demo://resource/dynamic/text/"
	server.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: prefix + "{index}", Name: "Dynamic text resource", MIMEType: "text/plain"}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		index := strings.TrimPrefix(req.Params.URI, prefix)
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "Resource " + index}}}, nil
	})
}

// argsPrompt asks about a city's weather, as the reference server's
// args-prompt does.
func argsPrompt(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	where := req.Params.Arguments["city"]
	if where == "" {
		return nil, fmt.Errorf("args-prompt: the argument city is required")
	}
	if state := req.Params.Arguments["state"]; state != "" {
		where += ", " + state
	}
	return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "What's weather in " + where + "?"}}}}, nil
}
