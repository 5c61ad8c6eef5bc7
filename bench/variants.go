package bench

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpgoserver "github.com/mark3labs/mcp-go/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpmount/mcpmount/adapters/gosdk"
	"github.com/mcpmount/mcpmount/httptransport"
)

// Mode is what a server is set up for: peers that fix JSON or SSE answers
// per handler get the right one for the scenario.
type Mode int

const (
	ModeJSON   Mode = iota // requests answered with JSON
	ModeSSE                // requests answered over SSE (progress)
	ModeStream             // held listen/GET streams and the fan-out
)

// Variant is one server under test.
type Variant struct {
	Name string
	// Rejects2026 is set for servers that do not serve 2026-07-28
	// requests (go-sdk's stateful handler).
	Rejects2026 bool
	// HoldGET is set for servers whose held stream is a 2025-era session's
	// GET stream rather than a 2026-07-28 subscriptions/listen stream.
	HoldGET bool
	// HoldOnly is set for variants measured in the held-stream benchmarks
	// only.
	HoldOnly bool
	New      func(Mode) *Instance
}

// Instance is a variant's handler with what the harness drives besides
// HTTP.
type Instance struct {
	Handler http.Handler
	// Broadcast makes the server send tools/list_changed to every listen
	// stream.
	Broadcast func()
	// Close ends the handler's streams and sessions.
	Close func()
}

// Names of the variants, in table order.
const (
	Floor_         = "floor"
	MCPMount       = "mcpmount"
	MCPMountGET    = "mcpmount-get2025"
	MCPMountGoSDK  = "mcpmount-gosdk"
	GoSDKStateless = "gosdk-stateless"
	GoSDKStateful  = "gosdk-stateful"
	MCPGo          = "mcp-go"
)

var quiet = slog.New(slog.DiscardHandler)

// Variants returns every server under test, floor first.
func Variants() []Variant {
	return []Variant{
		{Name: Floor_, New: func(Mode) *Instance {
			f := NewFloor()
			return &Instance{Handler: f, Broadcast: f.Broadcast, Close: f.Close}
		}},
		{Name: MCPMount, New: func(Mode) *Instance {
			e := NewMinimalEngine()
			h := httptransport.New(e, &httptransport.Options{Logger: quiet})
			return &Instance{Handler: h, Broadcast: e.Broadcast, Close: func() { shutdown(h) }}
		}},
		{Name: MCPMountGET, HoldGET: true, HoldOnly: true, New: func(Mode) *Instance {
			e := NewMinimalEngine()
			// 10,000 sessions from one address, each holding its GET
			// stream: past the default bounds (1,000 an address, 10,000
			// in all), which would refuse them with 503.
			h := httptransport.New(e, &httptransport.Options{Logger: quiet, MaxSessions: -1, MaxSessionsPerAddress: -1})
			return &Instance{Handler: h, Broadcast: e.Broadcast, Close: func() { shutdown(h) }}
		}},
		{Name: MCPMountGoSDK, New: func(Mode) *Instance { return newGoSDKInstance(nil) }},
		{Name: GoSDKStateless, New: func(m Mode) *Instance {
			return goSDKHandler(true, m)
		}},
		{Name: GoSDKStateful, Rejects2026: true, HoldGET: true, New: func(m Mode) *Instance {
			return goSDKHandler(false, m)
		}},
		{Name: MCPGo, New: func(Mode) *Instance {
			s := NewMCPGoServer()
			h := mcpgoserver.NewStreamableHTTPServer(s, mcpgoserver.WithStreamableHTTPLogger(quiet))
			var n atomic.Int64
			return &Instance{Handler: h, Close: func() {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				_ = h.Shutdown(ctx)
			}, Broadcast: func() {
				s.AddTool(mcpgo.NewTool("extra"+strconv.FormatInt(n.Add(1), 10)), echoMCPGo)
			}}
		}},
		MCPMountMCPGoVariant(),
	}
}

func shutdown(h *httptransport.Handler) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = h.Shutdown(ctx)
}

// newGoSDKInstance is the mcpmount-gosdk server, with obs as its
// Observer (nil: none).
func newGoSDKInstance(obs httptransport.Observer) *Instance {
	srv := NewGoSDKServer()
	e := gosdk.NewEngine(srv, &gosdk.Options{Logger: quiet})
	h := httptransport.New(e, &httptransport.Options{Logger: quiet, Observer: obs})
	return &Instance{Handler: h, Broadcast: goSDKBroadcast(srv), Close: func() {
		shutdown(h)
		_ = e.Close()
	}}
}

// NewGoSDKServer returns the go-sdk server with the echo and progress tools.
func NewGoSDKServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1"}, &mcp.ServerOptions{Logger: quiet})
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "echo text"}, func(ctx context.Context, req *mcp.CallToolRequest, in struct {
		Text string `json:"text"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "progress", Description: "progress"}, func(ctx context.Context, req *mcp.CallToolRequest, in struct {
		Count int `json:"count"`
	}) (*mcp.CallToolResult, any, error) {
		token := req.Params.GetProgressToken()
		for i := 1; i <= in.Count; i++ {
			if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(i), Total: float64(in.Count)}); err != nil {
				return nil, nil, err
			}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: ProgressDone}}}, nil, nil
	})
	return s
}

func goSDKBroadcast(s *mcp.Server) func() {
	var n atomic.Int64
	return func() {
		s.AddTool(&mcp.Tool{Name: "extra" + strconv.FormatInt(n.Add(1), 10), InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	}
}

func goSDKHandler(stateless bool, m Mode) *Instance {
	srv := NewGoSDKServer()
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{
		Stateless:    stateless,
		JSONResponse: m == ModeJSON,
		Logger:       quiet,
	})
	return &Instance{Handler: h, Broadcast: goSDKBroadcast(srv), Close: func() {
		for ss := range srv.Sessions() {
			_ = ss.Close()
		}
	}}
}

// NewMCPGoServer returns the mcp-go server with the echo and progress tools.
func NewMCPGoServer() *mcpgoserver.MCPServer {
	s := mcpgoserver.NewMCPServer("bench", "1", mcpgoserver.WithToolCapabilities(true))
	s.AddTool(mcpgo.NewTool("echo", mcpgo.WithString("text")), echoMCPGo)
	s.AddTool(mcpgo.NewTool("progress", mcpgo.WithNumber("count")), func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		n := req.GetInt("count", 0)
		var token any
		if req.Params.Meta != nil {
			token = req.Params.Meta.ProgressToken
		}
		srv := mcpgoserver.ServerFromContext(ctx)
		for i := 1; i <= n; i++ {
			if err := srv.SendNotificationToClient(ctx, "notifications/progress", map[string]any{"progressToken": token, "progress": i, "total": n}); err != nil {
				return nil, err
			}
		}
		return mcpgo.NewToolResultText(ProgressDone), nil
	})
	return s
}

func echoMCPGo(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
	return mcpgo.NewToolResultText(req.GetString("text", "")), nil
}

// Server is an instance served over loopback HTTP.
type Server struct {
	*Instance
	Addr string
	srv  *http.Server
	done chan struct{}
}

// Start serves inst on a fresh loopback port.
func Start(inst *Instance) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{Instance: inst, Addr: ln.Addr().String(), srv: &http.Server{Handler: inst.Handler, ErrorLog: nil}, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			panic(err)
		}
	}()
	return s, nil
}

// Stop ends the handler's streams, closes every connection and waits for
// the server loop to end.
func (s *Server) Stop() {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		s.Instance.Close()
	}()
	wg.Wait()
	_ = s.srv.Close()
	<-s.done
}
