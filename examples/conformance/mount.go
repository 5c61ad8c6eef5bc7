package main

import (
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpmount/mcpmount/adapters/gosdk"
	"github.com/mcpmount/mcpmount/httptransport"
)

// mount serves srv on mux at /mcp: every era on the one URL (2026-07-28
// stateless, 2025-era Streamable HTTP sessions with resumability, and the
// 2024-11-05 HTTP+SSE transport). At /mcp-short it serves srv again with
// held streams ended every 300 ms (MaxStreamDuration), for the interop
// test of clients whose streams the server ends. It returns the handlers,
// for Shutdown.
func mount(mux *http.ServeMux, srv *mcp.Server) []*httptransport.Handler {
	h := httptransport.New(gosdk.NewEngine(srv, nil), nil)
	mux.Handle("/mcp", h)
	short := httptransport.New(gosdk.NewEngine(srv, nil), &httptransport.Options{
		MaxStreamDuration: 300 * time.Millisecond,
		RetryInterval:     50 * time.Millisecond,
	})
	mux.Handle("/mcp-short", short)
	return []*httptransport.Handler{h, short}
}
