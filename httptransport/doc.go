// Package httptransport serves the Model Context Protocol over HTTP: one
// http.Handler, mounted on any router, that serves every era of the
// protocol on one URL.
//
// # Serving
//
// New takes an Engine, the MCP server behind the transport, from an
// adapter (adapters/gosdk for the official Go SDK's *mcp.Server,
// adapters/mcpgo for mcp-go, adapters/stdio for a stdio server run as a
// child process). Mount the Handler it returns, and on the way out shut it
// down before the HTTP server:
//
//	engine := gosdk.NewEngine(server, nil)
//	defer engine.Close()
//	h := httptransport.New(engine, nil)
//	mux.Handle("/mcp", h)
//	// ... and after a signal: h.Shutdown(ctx), then srv.Shutdown(ctx).
//
// gosdk's ExampleNewEngine runs this with go-sdk clients; ExampleNew and
// ExampleNew_session show the wire with a tiny engine. What a user sets is
// in Options: the guards and bounds (all on by
// default), Stateless, a shared SessionStore and EventStore to scale out
// (package redisstore), an Observer (package otelmcp) and a RateLimit.
// Handler.WithCORS puts CORS in front of bearer auth (package auth).
//
// One Handler decides each request's era from the request alone:
//
//   - 2026-07-28, stateless: every POST carries its protocol version and
//     client capabilities in params._meta and the standard Mcp-* headers,
//     and is answered with JSON or its own SSE stream.
//   - 2025-03-26, 2025-06-18 and 2025-11-25 Streamable HTTP: initialize
//     creates a session (Mcp-Session-Id); GET opens its standalone stream;
//     DELETE ends it; streams resume with Last-Event-ID.
//   - 2024-11-05 HTTP+SSE: a GET without a session id opens the legacy
//     event stream, whose endpoint event names this URL with a sessionId
//     query parameter for the client's POSTs.
//   - Plain JSON-RPC over HTTP, which no era describes: a POST whose Accept
//     does not name text/event-stream is answered with JSON only (204 for
//     what has no answer), and served without a session when it sends no
//     session id (Options.RequireSessionID turns this off).
//
// Guards run first (Origin and Host checks, body size, JSON depth, Accept
// and Content-Type), and every refusal has one HTTP status and one
// JSON-RPC code. A POST silent for a second opens its SSE stream so that
// first-byte timeouts see it start; quiet streams get keep-alives; each
// write has its own deadline in place of http.Server.WriteTimeout.
//
// # Writing an engine
//
// The rest of the API is for engine and store authors. An Engine describes
// itself (Description, HeaderParam) and serves one Call at a time, sending
// through the call or a Session's Sender and returning ErrHold to hold a
// listen stream; SessionReplier and SessionStateObserver are optional.
// A shared store implements SessionStore (SessionRecord), and SessionRelay
// and SessionRefresher to serve any session on any instance; EventStore
// keeps events for resumption. MemorySessionStore and MemoryEventStore are
// the defaults. Observer, with Event, CallInfo and CallOutcome, sees
// requests, sessions and streams. adapters/gosdk is the reference engine.
//
// Comments cite the MCP specification as "spec <version> <page>[#section]":
// https://modelcontextprotocol.io/specification/<version>/<page>.
package httptransport
