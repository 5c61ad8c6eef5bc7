// Package adaptertest holds the fixture the router adapters' tests share:
// a go-sdk server whose tools report to the test, a loopback server for a
// router built around its MCP endpoint, go-sdk clients of every protocol
// era, and the checks every mount must pass. It is not part of the
// library's API.
package adaptertest

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// wait bounds every wait of the fixture.
const wait = 10 * time.Second

// KeyArgs are the arguments of the probe's tools: Key names a call, for
// Started, Cancelled and Open.
type KeyArgs struct {
	Key string `json:"key,omitempty"`
}

// Probe is a go-sdk server whose tools report to the test: whoami returns
// what describe sees in the tool's context; stepped sends progress #2
// only after the client has acknowledged #1; block runs until its gate
// opens or its context ends.
type Probe struct {
	// Server is the go-sdk server with the tools.
	Server *mcp.Server
	// Started receives the key of every block call when it starts.
	Started chan string
	// Cancelled receives the key of every block call whose context ended.
	Cancelled chan string

	// Hijacked counts the connections the transport took over from
	// net/http for held streams (set by Serve).
	Hijacked atomic.Int32

	mu    sync.Mutex
	gates map[string]chan struct{}
}

// NewProbe returns a Probe whose whoami and block tools report what
// describe sees in their context, followed by " user=" and the verified
// caller, if any.
func NewProbe(describe func(context.Context) string) *Probe {
	p := &Probe{Started: make(chan string, 8), Cancelled: make(chan string, 8), gates: map[string]chan struct{}{}}
	p.Server = mcp.NewServer(&mcp.Implementation{Name: "probe", Version: "1.0.0"}, nil)
	mcp.AddTool(p.Server, &mcp.Tool{Name: "whoami"}, func(ctx context.Context, req *mcp.CallToolRequest, _ KeyArgs) (*mcp.CallToolResult, any, error) {
		return result(whoami(ctx, req, describe)), nil, nil
	})
	mcp.AddTool(p.Server, &mcp.Tool{Name: "stepped"}, func(ctx context.Context, req *mcp.CallToolRequest, a KeyArgs) (*mcp.CallToolResult, any, error) {
		tok := req.Params.GetProgressToken()
		for i := 1; i <= 2; i++ {
			if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i), Total: 2}); err != nil {
				return nil, nil, err
			}
			if i == 1 {
				select {
				case <-p.gate(a.Key):
				case <-time.After(wait):
					return nil, nil, errors.New("progress #1 never reached the client: the stream is buffered")
				}
			}
		}
		return result("stepped"), nil, nil
	})
	mcp.AddTool(p.Server, &mcp.Tool{Name: "block"}, func(ctx context.Context, req *mcp.CallToolRequest, a KeyArgs) (*mcp.CallToolResult, any, error) {
		p.Started <- a.Key
		select {
		case <-ctx.Done():
			p.Cancelled <- a.Key
			return nil, nil, ctx.Err()
		case <-p.gate(a.Key):
			return result(whoami(ctx, req, describe)), nil, nil
		case <-time.After(wait):
			return nil, nil, errors.New("block: never released")
		}
	})
	return p
}

func whoami(ctx context.Context, req *mcp.CallToolRequest, describe func(context.Context) string) string {
	s := describe(ctx)
	if req.Extra != nil && req.Extra.TokenInfo != nil {
		s += " user=" + req.Extra.TokenInfo.UserID
	}
	return s
}

// gate returns the channel that Open(key) closes.
func (p *Probe) gate(key string) chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	g, ok := p.gates[key]
	if !ok {
		g = make(chan struct{})
		p.gates[key] = g
	}
	return g
}

// Open releases the block call named key (at once if it has not started
// yet), or lets the stepped call named key send its progress #2.
func (p *Probe) Open(key string) {
	g := p.gate(key)
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-g:
	default:
		close(g)
	}
}

func result(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}
