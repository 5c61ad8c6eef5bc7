package ginmcp_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/mcpmount/mcpmount/adapters/gosdk"
	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/sse"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// The eras every test runs: go-sdk's Streamable HTTP client at 2026-07-28
// and at 2025-11-25, and its HTTP+SSE client at 2024-11-05.
var eras = []string{httptransport.Version20260728, httptransport.Version20251125, httptransport.Version20241105}

const wait = 10 * time.Second

type keyArgs struct {
	Key string `json:"key,omitempty"`
}

// probe is a go-sdk server whose tools report to the test: whoami returns
// what describe sees in the tool's context; stepped sends progress #2
// only after the client has acknowledged #1; block runs until its gate
// opens or its context ends.
type probe struct {
	server    *mcp.Server
	started   chan string
	cancelled chan string

	mu    sync.Mutex
	gates map[string]chan struct{}
}

func newProbe(describe func(context.Context) string) *probe {
	p := &probe{started: make(chan string, 8), cancelled: make(chan string, 8), gates: map[string]chan struct{}{}}
	p.server = mcp.NewServer(&mcp.Implementation{Name: "probe", Version: "1.0.0"}, nil)
	mcp.AddTool(p.server, &mcp.Tool{Name: "whoami"}, func(ctx context.Context, req *mcp.CallToolRequest, _ keyArgs) (*mcp.CallToolResult, any, error) {
		return result(whoami(ctx, req, describe)), nil, nil
	})
	mcp.AddTool(p.server, &mcp.Tool{Name: "stepped"}, func(ctx context.Context, req *mcp.CallToolRequest, a keyArgs) (*mcp.CallToolResult, any, error) {
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
	mcp.AddTool(p.server, &mcp.Tool{Name: "block"}, func(ctx context.Context, req *mcp.CallToolRequest, a keyArgs) (*mcp.CallToolResult, any, error) {
		p.started <- a.Key
		select {
		case <-ctx.Done():
			p.cancelled <- a.Key
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

// gate returns the channel that open(key) closes.
func (p *probe) gate(key string) chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	g, ok := p.gates[key]
	if !ok {
		g = make(chan struct{})
		p.gates[key] = g
	}
	return g
}

func (p *probe) open(key string) {
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

// serve starts a loopback server for the router that route builds around
// the MCP endpoint serving p, and stops everything when the test ends.
func serve(t *testing.T, p *probe, route func(endpoint http.Handler) http.Handler) *httptest.Server {
	t.Helper()
	engine := gosdk.NewEngine(p.server, nil)
	endpoint := httptransport.New(engine, nil)
	srv := httptest.NewServer(route(endpoint))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := endpoint.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		srv.Close()
		_ = engine.Close()
	})
	return srv
}

// connect connects a go-sdk client at era; progress receives the client's
// progress notifications, hc (nil for the default) makes its requests.
func connect(t *testing.T, url, era string, hc *http.Client, progress func(*mcp.ProgressNotificationClientRequest)) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1.0.0"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			if progress != nil {
				progress(req)
			}
		},
	})
	var tr mcp.Transport = &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc}
	if era == httptransport.Version20241105 {
		tr = &mcp.SSEClientTransport{Endpoint: url, HTTPClient: hc}
	}
	// go-sdk's SSE client keeps its event stream on Connect's context, so
	// that context lives as long as the session.
	ctx, cancel := context.WithCancel(context.Background())
	timer := time.AfterFunc(wait, cancel)
	cs, err := client.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: era})
	timer.Stop()
	if err != nil {
		cancel()
		t.Fatalf("connect at %s: %v", era, err)
	}
	t.Cleanup(func() {
		_ = cs.Close()
		cancel()
	})
	if got := cs.InitializeResult().ProtocolVersion; got != era {
		t.Fatalf("negotiated %s, want %s", got, era)
	}
	return cs
}

// call calls a tool and returns its text, failing the test on errors.
func call(t *testing.T, cs *mcp.ClientSession, params *mcp.CallToolParams) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*wait)
	defer cancel()
	res, err := cs.CallTool(ctx, params)
	if err != nil {
		t.Fatalf("%s: %v", params.Name, err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("%s: content %v", params.Name, res.Content)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if res.IsError {
		t.Fatalf("%s: tool error %q", params.Name, text)
	}
	return text
}

// checkEra runs what every mount must pass at era, against the endpoint
// at url: the router's view of the request (want) reaches the tool's
// context; progress events arrive one by one; cancelling the client's
// context cancels the tool's.
func checkEra(t *testing.T, p *probe, url, era, want string) {
	t.Run("context", func(t *testing.T) {
		cs := connect(t, url, era, nil, nil)
		if got := call(t, cs, &mcp.CallToolParams{Name: "whoami", Arguments: keyArgs{}}); got != want {
			t.Errorf("tool saw %q, want %q", got, want)
		}
	})
	t.Run("progress", func(t *testing.T) {
		key := "stepped-" + era
		got := make(chan float64, 2)
		cs := connect(t, url, era, nil, func(req *mcp.ProgressNotificationClientRequest) {
			if req.Params.ProgressToken != any(key) {
				return
			}
			got <- req.Params.Progress
			if req.Params.Progress == 1 {
				p.open(key) // lets the tool send #2
			}
		})
		params := &mcp.CallToolParams{Name: "stepped", Arguments: keyArgs{Key: key}}
		params.SetProgressToken(key)
		if text := call(t, cs, params); text != "stepped" {
			t.Fatalf("stepped = %q", text)
		}
		for want := 1.0; want <= 2; want++ {
			select {
			case v := <-got:
				if v != want {
					t.Errorf("progress %v, want %v", v, want)
				}
			case <-time.After(wait):
				t.Fatalf("progress #%v never arrived", want)
			}
		}
	})
	t.Run("cancel", func(t *testing.T) {
		key := "block-" + era
		cs := connect(t, url, era, nil, nil)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		errc := make(chan error, 1)
		go func() {
			_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "block", Arguments: keyArgs{Key: key}})
			errc <- err
		}()
		waitFor(t, p.started, key)
		cancel()
		waitFor(t, p.cancelled, key)
		if err := <-errc; !errors.Is(err, context.Canceled) {
			t.Errorf("CallTool error = %v, want context.Canceled", err)
		}
	})
}

// waitFor reads c until key arrives.
func waitFor(t *testing.T, c <-chan string, key string) {
	t.Helper()
	timeout := time.After(wait)
	for {
		select {
		case k := <-c:
			if k == key {
				return
			}
		case <-timeout:
			t.Fatalf("%s: timed out", key)
		}
	}
}

// checkLegacyEndpoint opens a 2024-11-05 event stream at url and checks
// that its first event names path, with a session id, for the POSTs.
func checkLegacyEndpoint(t *testing.T, url, path string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || ct != "text/event-stream" {
		t.Fatalf("GET: %s, Content-Type %q", resp.Status, ct)
	}
	rd := sse.NewReader(resp.Body)
	ev, err := rd.Next()
	for err == nil && ev.IsComment {
		ev, err = rd.Next()
	}
	if err != nil {
		t.Fatal(err)
	}
	if ev.Name != "endpoint" || !strings.HasPrefix(string(ev.Data), path+"?sessionId=") {
		t.Errorf("first event %q: %q, want endpoint: %s?sessionId=...", ev.Name, ev.Data, path)
	}
}
