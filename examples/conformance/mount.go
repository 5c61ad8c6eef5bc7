package main

import (
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpmount/mcpmount/adapters/gosdk"
	"github.com/mcpmount/mcpmount/httptransport"
)

// mount serves srv on mux at /mcp: every era on the one URL (2026-07-28
// stateless, 2025-era Streamable HTTP sessions with resumability, and the
// 2024-11-05 HTTP+SSE transport). It returns the handler, for Shutdown.
func mount(mux *http.ServeMux, srv *mcp.Server) *httptransport.Handler {
	h := httptransport.New(gosdk.NewEngine(srv, nil), nil)
	mux.Handle("/mcp", h)
	return h
}
