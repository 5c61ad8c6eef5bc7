// Package httptransport serves the Model Context Protocol over HTTP as one
// http.Handler that mounts on any router.
//
// # Eras
//
// One Handler serves every era of the protocol on one URL, deciding per
// request from the request alone:
//
//   - 2026-07-28, stateless: every POST carries its protocol version and
//     client capabilities in params._meta and the standard Mcp-* headers;
//     each request is answered with JSON or with its own SSE stream, and a
//     client dropping the request cancels exactly that call.
//   - 2025-03-26, 2025-06-18 and 2025-11-25 Streamable HTTP: initialize
//     creates a session (Mcp-Session-Id); GET opens the session's
//     standalone stream; DELETE ends it; streams are resumable with
//     Last-Event-ID.
//   - 2024-11-05 HTTP+SSE: a GET without a session id opens the legacy
//     event stream, whose endpoint event names this same URL with a
//     sessionId query parameter for the client's POSTs.
//
// The MCP server logic lives behind the Engine interface; the
// adapters/gosdk package serves an *mcp.Server of the official Go SDK
// through it. ExampleNew and ExampleNew_session show the two wires with a
// tiny engine of their own.
//
// # Guards
//
// Guards run first: the Origin and Host checks against DNS rebinding, the
// request body limit, JSON nesting (jsonrpc.MaxDepth), and the Accept and
// Content-Type checks. The number of sessions is bounded per instance and
// per client address (Options.MaxSessions, MaxSessionsPerAddress). Every
// refusal has one HTTP status and one JSON-RPC code.
//
// # Streams and time
//
// A POST that sends nothing for a second opens its SSE stream (status,
// headers, a comment) so that clients and proxies with a first-byte
// timeout see the response start (Options.HeaderFlushDelay); an error the
// engine returns after that goes out as an SSE event under status 200
// instead of the status it would have had. Quiet streams get keep-alive
// comments (Options.KeepAlive). The server's own http.Server.WriteTimeout
// is lifted for streams; each write has a deadline of its own instead
// (Options.WriteTimeout), and a cancelled call's blocked write ends at
// once. Held streams (a listen, a GET stream, a 2024-11-05 event stream)
// on HTTP/1.x connections are taken over from net/http once their headers
// are out, so that an idle stream costs no goroutine of the handler's
// (Options.DisableHijack).
//
// # Scaling out
//
// 2026-07-28 requests need nothing shared. 2025-era and 2024-11-05
// sessions live in a SessionStore (Options.Sessions); a shared one that
// also implements SessionRelay and SessionRefresher lets any instance
// behind a plain load balancer serve any request of any session (package
// redisstore is one, on Redis).
//
// # Citations
//
// Comments cite the MCP specification as "spec <version> <page>[#section]",
// the page https://modelcontextprotocol.io/specification/<version>/<page>:
// "spec 2025-11-25 basic/transports#session-management", say.
package httptransport
