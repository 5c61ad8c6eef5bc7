package redisstore_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/redis/go-redis/v9"

	"github.com/mcpmount/mcpmount/adapters/gosdk"
	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/redisstore"
)

// BenchmarkSessionCallRedis: a 2025-11-25 session's tools/call, answered as
// JSON, through the go-sdk engine with the session and its events in Redis:
// what a scaled-out instance pays per call (a record read and touch, the
// call). Run: go test -run '^$' -bench SessionCallRedis -benchmem.
func BenchmarkSessionCallRedis(b *testing.B) {
	store := newStoreB(b)
	server := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, a textArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Text}}}, nil, nil
	})
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	engine := gosdk.NewEngine(server, &gosdk.Options{Logger: quiet})
	h := httptransport.New(engine, &httptransport.Options{Sessions: store, Events: store, Logger: quiet})
	srv := httptest.NewServer(h)
	b.Cleanup(func() {
		_ = h.Shutdown(context.Background())
		srv.Close()
		engine.Close()
	})
	post := func(sid, body string) *http.Response {
		req, _ := http.NewRequest("POST", srv.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
			req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	resp := post("", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}`)
	sid := resp.Header.Get("Mcp-Session-Id")
	post(sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if resp := post(sid, body); resp.StatusCode != http.StatusOK {
			b.Fatalf("call: %d", resp.StatusCode)
		}
	}
}

// newStoreB is newStore for benchmarks: a Store on the test Redis with a
// prefix of the benchmark's own.
func newStoreB(b *testing.B) *redisstore.Store {
	c := redis.NewClient(&redis.Options{Addr: redisAddr})
	s := redisstore.New(c, &redisstore.Options{Prefix: "bench:" + b.Name() + ":"})
	b.Cleanup(func() { _ = s.Close(); _ = c.Close() })
	return s
}
