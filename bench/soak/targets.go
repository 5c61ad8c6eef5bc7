package soak

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/redis/go-redis/v9"

	"github.com/mcpmount/mcpmount/adapters/gosdk"
	mcpgoengine "github.com/mcpmount/mcpmount/adapters/mcpgo"
	"github.com/mcpmount/mcpmount/bench"
	"github.com/mcpmount/mcpmount/examples/roundrobin"
	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/redisstore"
)

// The targets a soak runs against.
const (
	TargetGoSDK = "gosdk"     // the go-sdk engine, sessions and events in memory
	TargetMCPGo = "mcpgo"     // the mcp-go engine, in memory
	TargetPair  = "redispair" // two go-sdk instances on one Redis behind a round-robin proxy
)

// Targets lists the targets in the order a soak runs them.
var Targets = []string{TargetGoSDK, TargetMCPGo, TargetPair}

// ServeConfig is what a soak's server process serves.
type ServeConfig struct {
	Target      string
	IdleTimeout time.Duration // the handlers' SessionIdleTimeout
	RedisAddr   string        // TargetPair: the Redis both instances share
	Prefix      string        // TargetPair: the keys' prefix
}

// instance is one handler serving an MCP server, and how to announce a
// list change on it and to stop it.
type instance struct {
	handler http.Handler
	flip    func() // adds the tool "flip", or removes it: a tools/list change
	close   func()
}

// target is what a soak's server process serves: its instances, and the
// URL of the MCP endpoint in front of them.
type target struct {
	url       string
	instances []*instance
	redis     *redis.Client // TargetPair: for counting what is left
	close     []func()
}

// newGoSDKInstance serves bench's go-sdk server (echo, progress) and the
// slow tool with opts.
func newGoSDKInstance(opts *httptransport.Options) *instance {
	srv := bench.NewGoSDKServer()
	mcp.AddTool(srv, &mcp.Tool{Name: "slow"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		<-ctx.Done() // an aborted call's end
		return nil, nil, ctx.Err()
	})
	e := gosdk.NewEngine(srv, &gosdk.Options{Logger: opts.Logger})
	h := httptransport.New(e, opts)
	on := false
	return &instance{handler: h, flip: func() {
		if on = !on; on {
			srv.AddTool(&mcp.Tool{Name: "flip", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{}, nil
			})
		} else {
			srv.RemoveTools("flip")
		}
	}, close: func() { stop(h); _ = e.Close() }}
}

// newMCPGoInstance serves bench's mcp-go server (echo, progress) and the
// slow tool with opts.
func newMCPGoInstance(opts *httptransport.Options) *instance {
	srv := bench.NewMCPGoServer()
	srv.AddTool(mcpgo.NewTool("slow"), func(ctx context.Context, _ mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
	e := mcpgoengine.NewEngine(srv, &mcpgoengine.Options{Logger: opts.Logger})
	h := httptransport.New(e, opts)
	on := false
	return &instance{handler: h, flip: func() {
		if on = !on; on {
			srv.AddTool(mcpgo.NewTool("flip"), func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
				return mcpgo.NewToolResultText("flip"), nil
			})
		} else {
			srv.DeleteTools("flip")
		}
	}, close: func() { stop(h); _ = e.Close() }}
}

func stop(h *httptransport.Handler) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = h.Shutdown(ctx)
}

// startTarget serves cfg's target on loopback.
func startTarget(cfg ServeConfig, logger *slog.Logger) (*target, error) {
	opts := func() *httptransport.Options {
		return &httptransport.Options{Logger: logger, SessionIdleTimeout: cfg.IdleTimeout}
	}
	t := &target{}
	switch cfg.Target {
	case TargetGoSDK:
		t.instances = []*instance{newGoSDKInstance(opts())}
	case TargetMCPGo:
		t.instances = []*instance{newMCPGoInstance(opts())}
	case TargetPair:
		t.redis = redis.NewClient(&redis.Options{Addr: cfg.RedisAddr, ContextTimeoutEnabled: true})
		t.close = append(t.close, func() { _ = t.redis.Close() })
		for range 2 {
			// Each instance its own client and Store, as two processes
			// would have; events outlive an idle session as long again.
			c := redis.NewClient(&redis.Options{Addr: cfg.RedisAddr, ContextTimeoutEnabled: true})
			t.close = append(t.close, func() { _ = c.Close() })
			store := redisstore.New(c, &redisstore.Options{Prefix: cfg.Prefix, EventTTL: 2 * cfg.IdleTimeout})
			o := opts()
			o.Sessions, o.Events = store, store
			t.instances = append(t.instances, newGoSDKInstance(o))
		}
	default:
		return nil, fmt.Errorf("soak: unknown target %q", cfg.Target)
	}
	var targets []*url.URL
	for _, in := range t.instances {
		u, err := t.serve(in.handler)
		if err != nil {
			t.stop()
			return nil, err
		}
		targets = append(targets, u)
	}
	t.url = targets[0].String() + "/mcp"
	if len(targets) > 1 {
		// Its connections to the instances close once idle for a second,
		// so that none is left once the load has stopped.
		transport := &http.Transport{IdleConnTimeout: time.Second, MaxIdleConnsPerHost: 16}
		t.close = append(t.close, transport.CloseIdleConnections)
		front, err := t.serve(roundrobin.New(targets, &roundrobin.Options{KeepHost: true, Transport: transport}))
		if err != nil {
			t.stop()
			return nil, err
		}
		t.url = front.String() + "/mcp"
	}
	return t, nil
}

// serve serves h on a fresh loopback port, stopped with the target.
func (t *target) serve(h http.Handler) (*url.URL, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("soak: listening: %w", err)
	}
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	t.close = append(t.close, func() { _ = hs.Close() })
	return &url.URL{Scheme: "http", Host: ln.Addr().String()}, nil
}

// stop stops the instances, then the servers and clients.
func (t *target) stop() {
	for _, in := range t.instances {
		in.close()
	}
	for i := len(t.close) - 1; i >= 0; i-- {
		t.close[i]()
	}
}

// flip announces a tools/list change on every instance, as an
// application applies a change to each of its instances.
func (t *target) flip() {
	for _, in := range t.instances {
		in.flip()
	}
}
