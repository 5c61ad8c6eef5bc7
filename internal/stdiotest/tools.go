package stdiotest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type echoArgs struct {
	Message string `json:"message"`
}

type sumArgs struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

type longArgs struct {
	Duration float64 `json:"duration,omitempty"` // seconds; 0: 10
	Steps    int     `json:"steps,omitempty"`    // 0: 5
}

type sampleArgs struct {
	Prompt    string `json:"prompt"`
	MaxTokens int64  `json:"maxTokens,omitempty"` // 0: 100
}

func addTools(server *mcp.Server, st *state) {
	mcp.AddTool(server, &mcp.Tool{Name: "echo", Description: "Echoes back the input string"}, func(_ context.Context, _ *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
		return textResult("Echo: " + a.Message), nil, nil
	})
	mcp.AddTool(server, &mcp.Tool{Name: "get-sum", Description: "Returns the sum of two numbers"}, func(_ context.Context, _ *mcp.CallToolRequest, a sumArgs) (*mcp.CallToolResult, any, error) {
		return textResult(fmt.Sprintf("The sum of %v and %v is %v.", a.A, a.B, a.A+a.B)), nil, nil
	})
	mcp.AddTool(server, &mcp.Tool{Name: "trigger-long-running-operation", Description: "A long running operation with progress updates"}, longRunning)
	mcp.AddTool(server, &mcp.Tool{Name: "gzip-file-as-resource", Description: "Compresses a data: URI's content into a new resource"}, st.gzipAsResource)
	mcp.AddTool(server, &mcp.Tool{Name: "toggle-subscriber-updates", Description: "Toggles updates of the subscribed resources"}, st.toggleUpdates)
}

func textResult(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// longRunning sends a progress notification after each of its steps,
// when the call has a progress token. Cancelled, it sends one more,
// whose message is Cancelled, and stops.
func longRunning(ctx context.Context, req *mcp.CallToolRequest, a longArgs) (*mcp.CallToolResult, any, error) {
	if a.Duration == 0 {
		a.Duration = 10
	}
	if a.Steps == 0 {
		a.Steps = 5
	}
	token := req.Params.GetProgressToken()
	step := time.Duration(a.Duration / float64(a.Steps) * float64(time.Second))
	for i := 1; i <= a.Steps; i++ {
		select {
		case <-time.After(step):
		case <-ctx.Done():
			if token != nil {
				_ = req.Session.NotifyProgress(context.WithoutCancel(ctx), &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(i - 1), Total: float64(a.Steps), Message: Cancelled})
			}
			return nil, nil, ctx.Err()
		}
		if token != nil {
			if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(i), Total: float64(a.Steps)}); err != nil {
				return nil, nil, fmt.Errorf("progress %d: %w", i, err)
			}
		}
	}
	return textResult(fmt.Sprintf("Long running operation completed. Duration: %v seconds, Steps: %d.", a.Duration, a.Steps)), nil, nil
}

// sample asks the client to sample a message and shows its answer.
func sample(ctx context.Context, req *mcp.CallToolRequest, a sampleArgs) (*mcp.CallToolResult, any, error) {
	if a.MaxTokens == 0 {
		a.MaxTokens = 100
	}
	res, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{
		Messages:     []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "Resource trigger-sampling-request context: " + a.Prompt}}},
		SystemPrompt: "You are a helpful test server.",
		MaxTokens:    a.MaxTokens,
	})
	if err != nil {
		return nil, nil, fmt.Errorf("sampling/createMessage: %w", err)
	}
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return nil, nil, fmt.Errorf("the sampling result: %w", err)
	}
	return textResult("LLM sampling result: \n" + string(b)), nil, nil
}

// rootsList shows the client's roots, asking for them if they have not
// come yet (as the reference server's tool does).
func (st *state) rootsList(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
	roots, err := st.syncRoots(ctx, req.Session)
	if err != nil {
		return nil, nil, err
	}
	if len(roots) == 0 {
		return textResult("The client supports roots but no roots are currently configured."), nil, nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Current MCP Roots (%d total):\n", len(roots))
	for i, r := range roots {
		fmt.Fprintf(&b, "\n%d. %s\n   URI: %s\n", i+1, r.Name, r.URI)
	}
	return textResult(b.String()), nil, nil
}
