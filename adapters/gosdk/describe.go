package gosdk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	gojsonrpc "github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/internal/logval"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// Describe implements httptransport.Engine. The description is computed
// once and again after the server announces a tool-list change, which a
// watcher connection listens for. One computation at a time serves every
// request that needs it; it does not end when the request that started it
// does, takes describeTimeout at most, and a request that leaves while it
// runs stops waiting for it (and gets a description without tools).
func (e *Engine) Describe(ctx context.Context) *httptransport.Description {
	e.descMu.Lock()
	if d := e.desc; d != nil {
		e.descMu.Unlock()
		return d
	}
	if e.watcher == nil && e.ctx.Err() == nil {
		e.startWatcherLocked()
	}
	f := e.flight
	if f == nil {
		if f = e.startFlightLocked(ctx); f == nil {
			e.descMu.Unlock()
			return e.bareDescription() // the engine is closed
		}
	}
	e.descMu.Unlock()
	select {
	case <-f.done:
		return f.d
	case <-ctx.Done():
		return e.bareDescription()
	}
}

// descFlight is one computation of the description.
type descFlight struct {
	done chan struct{} // closed once d is set
	d    *httptransport.Description
}

// startFlightLocked starts computing the description on a goroutine of
// its own (Close waits for it), with ctx's values but not its end; nil
// once the engine is closed. The caller holds descMu.
func (e *Engine) startFlightLocked(ctx context.Context) *descFlight {
	e.ctlMu.Lock()
	defer e.ctlMu.Unlock()
	if e.closed {
		return nil
	}
	f := &descFlight{done: make(chan struct{})}
	e.flight = f
	gen := e.descGen
	e.wg.Add(1) // under ctlMu: never concurrent with Close's Wait
	go func() {
		defer e.wg.Done()
		e.computeDescription(context.WithoutCancel(ctx), f, gen)
	}()
	return f
}

// computeDescription lists the tools and derives the description; it is
// cached unless the listing failed or the tools changed meanwhile (gen).
func (e *Engine) computeDescription(ctx context.Context, f *descFlight, gen uint64) {
	lctx, cancel := context.WithTimeout(ctx, describeTimeout)
	defer cancel()
	defer context.AfterFunc(e.ctx, cancel)() // Close ends it
	d := e.bareDescription()
	versions, err := e.servedVersions(lctx)
	if err != nil {
		e.log.Warn("gosdk: asking the server for its protocol versions failed", "error", logval.Err(err))
	} else {
		d.Versions = versions
		e.versions.Store(&versions)
	}
	// Tool headers are a 2026-07-28 matter: a server that does not serve
	// it has none to check (and answers the listing, made at 2026-07-28,
	// with -32022).
	if err != nil || slices.Contains(versions, httptransport.Version20260728) {
		headers, lerr := e.toolHeaders(lctx)
		if lerr != nil {
			err = lerr
			e.log.Warn("gosdk: listing tools for header validation failed", "error", logval.Err(err))
		} else {
			d.ToolHeaders = headers
		}
	}
	e.descMu.Lock()
	if e.flight == f {
		e.flight = nil
	}
	if err == nil && e.descGen == gen {
		e.desc = d
	}
	e.descMu.Unlock()
	f.d = d
	close(f.done)
}

// toolHeaders lists the tools and keeps their x-mcp-header parameters.
func (e *Engine) toolHeaders(ctx context.Context) (map[string][]httptransport.HeaderParam, error) {
	tools, err := e.listTools(ctx)
	if err != nil {
		return nil, err
	}
	headers := make(map[string][]httptransport.HeaderParam)
	for _, t := range tools {
		if params := headerParams(t.InputSchema, nil); len(params) > 0 {
			headers[t.Name] = params
		}
	}
	return headers, nil
}

// bareDescription is the description without tools: the versions only,
// those the server said it serves once it has, every version the SDK
// knows until then.
func (e *Engine) bareDescription() *httptransport.Description {
	if v := e.versions.Load(); v != nil {
		return &httptransport.Description{Versions: *v}
	}
	return &httptransport.Description{Versions: mcp.SupportedProtocolVersions()}
}

// servedVersions asks the server which protocol versions it serves
// (ServerOptions.SupportedProtocolVersions may narrow the SDK's): its
// server/discover answer, or, on a server that does not serve 2026-07-28,
// the list its unsupported-version error carries.
func (e *Engine) servedVersions(ctx context.Context) ([]string, error) {
	raw, err := e.request(ctx, "server/discover", map[string]any{"_meta": modernMeta()})
	if err == nil {
		var res struct {
			SupportedVersions []string `json:"supportedVersions"`
		}
		if err := json.Unmarshal(raw, &res); err != nil {
			return nil, fmt.Errorf("gosdk: reading server/discover's versions: %w", err)
		}
		if len(res.SupportedVersions) == 0 {
			return nil, errors.New("gosdk: server/discover lists no versions")
		}
		return res.SupportedVersions, nil
	}
	var werr *gojsonrpc.Error
	if errors.As(err, &werr) && werr.Code == mcp.CodeUnsupportedProtocolVersion {
		var data mcp.UnsupportedProtocolVersionData
		if json.Unmarshal(werr.Data, &data) == nil && len(data.Supported) > 0 {
			return data.Supported, nil
		}
	}
	return nil, fmt.Errorf("gosdk: server/discover: %w", err)
}

// describeTimeout bounds the tools/list round trips that compute a
// description (through the server's middleware, which may be slow).
const describeTimeout = 10 * time.Second

// invalidate drops the cached description; a computation under way from
// before the change is left to finish for those who wait on it, but is not
// cached, and later requests start a new one.
func (e *Engine) invalidate() {
	e.descMu.Lock()
	e.desc, e.flight = nil, nil
	e.descGen++
	e.descMu.Unlock()
}

// ensureWatcher starts the watcher if need be, and reports whether it runs.
func (e *Engine) ensureWatcher() bool {
	e.descMu.Lock()
	defer e.descMu.Unlock()
	if e.watcher == nil && e.ctx.Err() == nil {
		e.startWatcherLocked()
	}
	return e.watcher != nil && e.ctx.Err() == nil
}

// startWatcherLocked connects a session that sees list changes: tools for
// the description and the capabilities, prompts and resources for the
// capabilities.
func (e *Engine) startWatcherLocked() {
	state := &mcp.ServerSessionState{
		InitializeParams:          &mcp.InitializeParams{ProtocolVersion: httptransport.Version20251125, Capabilities: &mcp.ClientCapabilities{}},
		InitializedParams:         &mcp.InitializedParams{},
		NegotiatedProtocolVersion: httptransport.Version20251125,
	}
	conn := newControlConn(e.ctx, "", nil, nil)
	conn.sink = senderFunc(func(m *jsonrpc.Message) {
		switch m.Method {
		case "notifications/tools/list_changed":
			e.invalidate()
			e.caps.invalidate() // the last tool gone, or the first added
			e.broadcast(m)
		case "notifications/prompts/list_changed", "notifications/resources/list_changed":
			e.caps.invalidate()
			e.broadcast(m)
		}
		e.hub.notify(m) // to the held listens
	})
	conn.answerPings = true // with ServerOptions.KeepAlive the SDK pings it too
	ss, err := e.server.Connect(e.ctx, conn, &mcp.ServerSessionOptions{State: state})
	if err != nil {
		e.log.Warn("gosdk: starting the tool watcher failed", "error", logval.Err(err))
		return
	}
	e.watcher, e.watchC = ss, conn
}

// watchResource subscribes the watcher to a resource's updates, or
// unsubscribes it (method), for the listens that asked (hub.go).
func (e *Engine) watchResource(ctx context.Context, method, uri string) error {
	e.descMu.Lock()
	c := e.watchC
	e.descMu.Unlock()
	if c == nil {
		return errEngineClosed
	}
	params, err := json.Marshal(map[string]string{"uri": uri})
	if err != nil {
		return err
	}
	resp, err := c.roundTrip(ctx, &gojsonrpc.Request{Method: method, Params: params})
	if err != nil {
		return err
	}
	if resp.Error != nil {
		return resp.Error
	}
	return nil
}

type senderFunc func(*jsonrpc.Message)

func (f senderFunc) Send(_ context.Context, m *jsonrpc.Message) error {
	f(m)
	return nil
}

// listTools lists every tool through one-request connections.
func (e *Engine) listTools(ctx context.Context) ([]*mcp.Tool, error) {
	var all []*mcp.Tool
	cursor := ""
	for {
		params := map[string]any{"_meta": modernMeta()}
		if cursor != "" {
			params["cursor"] = cursor
		}
		raw, err := e.request(ctx, "tools/list", params)
		if err != nil {
			return nil, err
		}
		var res mcp.ListToolsResult
		if err := json.Unmarshal(raw, &res); err != nil {
			return nil, err
		}
		all = append(all, res.Tools...)
		if res.NextCursor == "" {
			return all, nil
		}
		cursor = res.NextCursor
	}
}

// modernMeta is the _meta of the engine's own 2026-07-28 requests.
func modernMeta() map[string]any {
	return map[string]any{
		"io.modelcontextprotocol/protocolVersion":    httptransport.Version20260728,
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
	}
}

// request sends the server one request on a connection of its own and
// returns the result.
func (e *Engine) request(ctx context.Context, method string, params any) (json.RawMessage, error) {
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	req := &gojsonrpc.Request{Method: method, Params: raw}
	req.ID, _ = gojsonrpc.MakeID(float64(1))
	conn := &oneShot{req: req, done: make(chan *gojsonrpc.Response, 1), pongs: make(chan gojsonrpc.Message, 1)}
	ss, err := e.server.Connect(ctx, conn, nil)
	if err != nil {
		return nil, err
	}
	var resp *gojsonrpc.Response
	select {
	case resp = <-conn.done:
	case <-ctx.Done():
		// End the connection's reading first: the SDK then cancels the
		// handler still running, whose end its Close waits for.
		_ = conn.Close()
	}
	_ = ss.Close()
	if resp == nil {
		return nil, ctx.Err()
	}
	if resp.Error != nil {
		return nil, resp.Error
	}
	return resp.Result, nil
}

// headerParams finds the properties annotated with x-mcp-header, following
// only "properties" keys as the spec requires.
func headerParams(schema any, path []string) []httptransport.HeaderParam {
	var obj map[string]any
	switch s := schema.(type) {
	case map[string]any:
		obj = s
	case nil:
		return nil
	default:
		raw, err := json.Marshal(s)
		if err != nil || json.Unmarshal(raw, &obj) != nil {
			return nil
		}
	}
	props, _ := obj["properties"].(map[string]any)
	var out []httptransport.HeaderParam
	for name, p := range props {
		prop, _ := p.(map[string]any)
		if prop == nil {
			continue
		}
		at := append(append([]string(nil), path...), name)
		if h, ok := prop["x-mcp-header"].(string); ok && h != "" {
			typ, _ := prop["type"].(string)
			out = append(out, httptransport.HeaderParam{Header: h, Path: at, Type: typ})
		}
		if _, nested := prop["properties"]; nested {
			out = append(out, headerParams(prop, at)...)
		}
	}
	return out
}

// oneShot is a connection that sends one request and keeps its response.
// It answers the SDK's keepalive pings (ServerOptions.KeepAlive), or the
// SDK would close it, and drop the response, while a slow request runs.
type oneShot struct {
	req   *gojsonrpc.Request
	mu    sync.Mutex
	sent  bool
	done  chan *gojsonrpc.Response
	pongs chan gojsonrpc.Message
	shut  chan struct{}
	once  sync.Once
}

func (o *oneShot) Connect(context.Context) (mcp.Connection, error) {
	o.shut = make(chan struct{})
	return o, nil
}

func (o *oneShot) Read(ctx context.Context) (gojsonrpc.Message, error) {
	o.mu.Lock()
	first := !o.sent
	o.sent = true
	o.mu.Unlock()
	if first {
		return o.req, nil
	}
	select {
	case pong := <-o.pongs:
		return pong, nil
	case <-o.shut:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (o *oneShot) Write(_ context.Context, msg gojsonrpc.Message) error {
	switch m := msg.(type) {
	case *gojsonrpc.Response:
		select {
		case o.done <- m:
		default:
		}
	case *gojsonrpc.Request:
		if m.Method == "ping" && m.IsCall() {
			select {
			case o.pongs <- &gojsonrpc.Response{ID: m.ID, Result: json.RawMessage("{}")}:
			case <-o.shut:
			}
		}
	}
	return nil
}

func (o *oneShot) Close() error {
	o.once.Do(func() { close(o.shut) })
	return nil
}

func (o *oneShot) SessionID() string { return "" }
