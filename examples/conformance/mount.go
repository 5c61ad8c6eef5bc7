package main

import (
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mount serves srv on mux at /mcp.
//
// TEMPORARY, until package httptransport lands: this serves go-sdk's own
// handlers so that the fixtures and the scripts can be validated now. go-sdk
// needs one handler per era, so for the time being three paths are used:
//
//	/mcp            stateful Streamable HTTP: 2025-03-26, 2025-06-18, 2025-11-25 sessions
//	/mcp-stateless  stateless Streamable HTTP: 2026-07-28
//	/sse            legacy HTTP+SSE: 2024-11-05 (GET opens the stream, POSTs go to the endpoint it names)
//
// scripts/conformance.sh and scripts/interop.sh look for /mcp-stateless and
// /sse and point the matching runs at them; when those paths are gone (404)
// every run goes to /mcp. So the real transport replaces the body of this
// function with the single line
//
//	mux.Handle("/mcp", httptransport.New(gosdk.NewEngine(srv, nil), nil))
//
// (imports: github.com/mcpmount/mcpmount/httptransport and
// github.com/mcpmount/mcpmount/adapters/gosdk) and nothing else changes.
func mount(mux *http.ServeMux, srv *mcp.Server) {
	getServer := func(*http.Request) *mcp.Server { return srv }
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{
		EventStore: mcp.NewMemoryEventStore(nil), // resumability, for server-sse-polling
	}))
	mux.Handle("/mcp-stateless", mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{
		Stateless:                    true,
		PropagateRequestCancellation: true, // 2026-07-28: a closed response stream cancels the call
	}))
	mux.Handle("/sse", mcp.NewSSEHandler(getServer, nil))
}
