package gosdk_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpmount/mcpmount/adapters/gosdk"
	"github.com/mcpmount/mcpmount/httptransport"
)

// roundRobin sends each request to the next of its hosts, as a load
// balancer without sticky sessions would.
type roundRobin struct {
	hosts []string
	next  atomic.Int64
	seen  []atomic.Int64
}

func (rr *roundRobin) RoundTrip(r *http.Request) (*http.Response, error) {
	i := int(rr.next.Add(1)) % len(rr.hosts)
	rr.seen[i].Add(1)
	r = r.Clone(r.Context())
	r.URL.Host = rr.hosts[i]
	r.Host = rr.hosts[i]
	return http.DefaultTransport.RoundTrip(r)
}

// TestSessionAcrossInstances: two instances sharing a SessionStore serve
// one 2025-11-25 session whose requests alternate between them: the
// session's state (the initialize parameters) travels in the store.
func TestSessionAcrossInstances(t *testing.T) {
	t.Parallel()
	store := httptransport.NewMemorySessionStore()
	var urls []string
	for i := 0; i < 2; i++ {
		server := mcp.NewServer(&mcp.Implementation{Name: "instance", Version: "1"}, nil)
		mcp.AddTool(server, &mcp.Tool{Name: "echo"}, func(ctx context.Context, req *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Text + " from " + req.Session.InitializeParams().ClientInfo.Name}}}, nil, nil
		})
		engine := gosdk.NewEngine(server, nil)
		h := httptransport.New(engine, &httptransport.Options{Sessions: store, DisableResumability: true})
		srv := httptest.NewServer(h)
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = h.Shutdown(ctx)
			srv.Close()
			engine.Close()
		})
		urls = append(urls, srv.URL)
	}
	var hosts []string
	for _, u := range urls {
		p, _ := url.Parse(u)
		hosts = append(hosts, p.Host)
	}
	rr := &roundRobin{hosts: hosts, seen: make([]atomic.Int64, 2)}
	client := mcp.NewClient(&mcp.Implementation{Name: "roaming-client", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: urls[0] + "/mcp", HTTPClient: &http.Client{Transport: rr}, DisableStandaloneSSE: true}, &mcp.ClientSessionOptions{ProtocolVersion: httptransport.Version20251125})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for i := 0; i < 6; i++ {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}})
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if got := textOf(t, res); got != "hi from roaming-client" {
			t.Fatalf("call %d: %q", i, got)
		}
	}
	if rr.seen[0].Load() < 3 || rr.seen[1].Load() < 3 {
		t.Errorf("requests per instance: %d, %d", rr.seen[0].Load(), rr.seen[1].Load())
	}
}
