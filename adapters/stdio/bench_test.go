package stdio_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"os/exec"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpmount/mcpmount/adapters/stdio"
	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// echoParams is the tools/call of every benchmark: the everything
// server's echo tool.
const echoParams = `{"name":"echo","arguments":{"message":"bench"}}`

// BenchmarkDirectStdio is the floor: one tools/call round trip written to
// the child's stdin and read from its stdout, with nothing between.
func BenchmarkDirectStdio(b *testing.B) {
	c := everything(b)
	cmd := exec.Command(c.Path, c.Args...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		stdin.Close()
		_ = cmd.Wait()
	}()
	r := bufio.NewReaderSize(stdout, 1<<20)
	roundTrip := func(id int, method, params string) {
		fmt.Fprintf(stdin, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", id, method, params)
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				b.Fatal(err)
			}
			var m struct {
				ID *int `json:"id"`
			}
			if json.Unmarshal(line, &m) == nil && m.ID != nil && *m.ID == id {
				return
			}
		}
	}
	roundTrip(0, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"0"}}`)
	fmt.Fprintln(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	id := 1
	for b.Loop() {
		roundTrip(id, "tools/call", echoParams)
		id++
	}
}

// BenchmarkEngineServe is a call through the engine without HTTP: Serve,
// its id rewritten, the child's round trip, the answer routed back.
func BenchmarkEngineServe(b *testing.B) {
	ctx := context.Background()
	e, err := stdio.New(ctx, everything(b), &stdio.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	id := 0
	for b.Loop() {
		id++
		call := &httptransport.Call{Version: httptransport.Version20251125, Request: &jsonrpc.Message{JSONRPC: jsonrpc.Version, ID: jsonrpc.Int64ID(int64(id)), Method: "tools/call", Params: json.RawMessage(echoParams)}}
		resp, err := e.Serve(ctx, call)
		if err != nil || resp.Error != nil {
			b.Fatal(err, resp)
		}
	}
}

// BenchmarkHTTP is a call through HTTP on loopback with go-sdk's client:
// 2026-07-28 (a stateless POST) and a 2025-11-25 session.
func BenchmarkHTTP(b *testing.B) {
	e, err := stdio.New(context.Background(), everything(b), &stdio.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	h := httptransport.New(e, &httptransport.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	srv := httptest.NewServer(h)
	defer func() {
		_ = h.Shutdown(context.Background())
		srv.Close()
		e.Close()
	}()
	for _, version := range []string{httptransport.Version20260728, httptransport.Version20251125} {
		b.Run(version, func(b *testing.B) {
			client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil)
			cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL, DisableStandaloneSSE: true}, &mcp.ClientSessionOptions{ProtocolVersion: version})
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Close()
			params := &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "bench"}}
			for b.Loop() {
				if _, err := cs.CallTool(context.Background(), params); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
