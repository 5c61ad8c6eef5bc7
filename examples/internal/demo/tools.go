// Package demo holds what the example servers share: a go-sdk server with
// a few tools, its endpoint (App), a development token issuer, the
// command-line entry (Main) and the serve loop. It is not part of the
// library's API.
package demo

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// EchoArgs are the arguments of the echo tool.
type EchoArgs struct {
	Text string `json:"text" jsonschema:"the text to echo"`
}

// ProgressArgs are the arguments of the progress tool.
type ProgressArgs struct {
	Steps   int `json:"steps" jsonschema:"how many progress notifications to send (1 to 100)"`
	DelayMS int `json:"delay_ms,omitempty" jsonschema:"pause between steps in milliseconds (default 200)"`
}

// SlowArgs are the arguments of the slow tool.
type SlowArgs struct {
	Seconds float64 `json:"seconds" jsonschema:"how long to work, in seconds (at most 600)"`
}

// NewServer returns a go-sdk server with three tools: echo, which shows
// the caller as the auth middleware verified it and, through describe
// (which may be nil), as the router saw it; progress, which streams
// progress notifications; and slow, which works until done or cancelled.
func NewServer(name string, describe func(ctx context.Context) string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: name, Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo text with the caller's identity."},
		func(ctx context.Context, req *mcp.CallToolRequest, in EchoArgs) (*mcp.CallToolResult, any, error) {
			var b strings.Builder
			b.WriteString(in.Text)
			if ti := tokenInfo(req); ti != nil {
				fmt.Fprintf(&b, " [caller %s, scopes %v]", ti.UserID, ti.Scopes)
			} else {
				b.WriteString(" [anonymous caller]")
			}
			if describe != nil {
				fmt.Fprintf(&b, " [%s]", describe(ctx))
			}
			return text(b.String()), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "progress", Description: "Send progress notifications, one per step."},
		func(ctx context.Context, req *mcp.CallToolRequest, in ProgressArgs) (*mcp.CallToolResult, any, error) {
			steps := min(max(in.Steps, 1), 100)
			delay := time.Duration(in.DelayMS) * time.Millisecond
			if in.DelayMS <= 0 {
				delay = 200 * time.Millisecond
			}
			tok := req.Params.GetProgressToken()
			for i := 1; i <= steps; i++ {
				if tok != nil {
					p := &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i), Total: float64(steps), Message: fmt.Sprintf("step %d of %d", i, steps)}
					if err := req.Session.NotifyProgress(ctx, p); err != nil {
						return nil, nil, err
					}
				}
				if i < steps {
					if err := sleep(ctx, delay); err != nil {
						return nil, nil, err
					}
				}
			}
			return text(fmt.Sprintf("done after %d steps", steps)), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "slow", Description: "Work for a while; stops early when the call is cancelled."},
		func(ctx context.Context, req *mcp.CallToolRequest, in SlowArgs) (*mcp.CallToolResult, any, error) {
			d := time.Duration(min(max(in.Seconds, 0), 600) * float64(time.Second))
			if err := sleep(ctx, d); err != nil {
				return nil, nil, err // the call was cancelled: the client is gone
			}
			return text(fmt.Sprintf("worked for %s", d)), nil, nil
		})
	return s
}

// sleep waits for d, or returns ctx's error if ctx ends first.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func tokenInfo(req *mcp.CallToolRequest) *auth.TokenInfo {
	if req.Extra == nil {
		return nil
	}
	return req.Extra.TokenInfo
}
