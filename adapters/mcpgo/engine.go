package mcpgo

import (
	"context"
	"crypto/rand"
	"errors"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/internal/fanout"
	"github.com/mcpmount/mcpmount/internal/logval"
)

// Options configures an Engine. A nil *Options means defaults.
type Options struct {
	// Logger receives the engine's logs. Nil means slog.Default(). Each
	// kind of line (a message dropped for a client that does not take
	// them, a notification that could not be encoded) is written at most
	// 10 a minute, the next one let through saying how many were
	// "suppressed"; errors and values from a request are quoted and cut.
	Logger *slog.Logger
}

// errEngineClosed refuses sessions and listens opened after Close.
var errEngineClosed = errors.New("mcpgo: engine closed")

// Engine implements httptransport.Engine on a mark3labs/mcp-go
// *server.MCPServer: mcp-go answers the JSON-RPC, the transport owns the
// HTTP wire.
type Engine struct {
	server   *server.MCPServer
	log      *logval.Logger
	tag      string // makes this engine's call session ids unique
	seq      atomic.Uint64
	versions []string // what the engine serves, newest first

	ctx    context.Context // ends with Close
	cancel context.CancelFunc
	wg     sync.WaitGroup // listens and sessions open here

	// deliver drains the sessions' and listens' pipes and outboxes, which
	// a broadcast reaches by the thousand, with a few goroutines.
	deliver *fanout.Pool[fanout.Queue]

	mu      sync.Mutex
	closed  bool
	longs   map[string]*session   // 2025-era sessions open here, by id
	listens map[*session]struct{} // held 2026-07-28 listens

	descMu  sync.Mutex
	desc    *httptransport.Description
	descGen uint64
	watcher *session
}

var (
	_ httptransport.Engine         = (*Engine)(nil)
	_ httptransport.SessionReplier = (*Engine)(nil)
)

// NewEngine returns an Engine serving srv. It adds middleware to srv that
// fills the Header of tool, prompt and resource requests (see Header) and
// lets their handlers answer with a JSON-RPC error of their choosing (an
// error wrapping a *jsonrpc.Error; mcp-go alone makes every error -32603),
// and
// registers one session of its own with srv, which sees tool-list changes
// for Describe (srv's session hooks see it too). Call Close when done.
func NewEngine(srv *server.MCPServer, opts *Options) *Engine {
	e := &Engine{
		server:   srv,
		tag:      "mcpmount-" + rand.Text()[:10],
		versions: slices.Clone(mcp.ValidProtocolVersions),
		longs:    make(map[string]*session),
		listens:  make(map[*session]struct{}),
		deliver:  fanout.New[fanout.Queue](fanout.SessionWorkers, fanout.SessionStuck),
	}
	var base *slog.Logger
	if opts != nil {
		base = opts.Logger
	}
	e.log = logval.NewLogger(base)
	e.ctx, e.cancel = context.WithCancel(context.Background())
	installMiddleware(srv)
	e.startWatcher()
	return e
}

// Close unregisters the engine's sessions from the server and waits for the
// listens it holds to end; call it once the handlers serving the engine
// have shut down (httptransport.Handler.Shutdown). Sessions and listens
// opened after it get an error.
func (e *Engine) Close() error {
	e.mu.Lock()
	e.closed = true
	e.mu.Unlock()
	e.cancel()
	e.wg.Wait()
	e.descMu.Lock()
	w := e.watcher
	e.watcher = nil
	e.descMu.Unlock()
	if w != nil {
		e.server.UnregisterSession(context.Background(), w.id)
		w.pipe.close()
	}
	return nil
}

// nextID returns a session id no other call of this engine's server has.
func (e *Engine) nextID(base string) string {
	if base == "" {
		base = e.tag
	}
	var n [20]byte
	return base + "#" + string(strconv.AppendUint(n[:0], e.seq.Add(1), 10)) // one allocation
}
