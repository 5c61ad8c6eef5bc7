// Package httptransport serves the Model Context Protocol over HTTP as one
// http.Handler that mounts on any router.
//
// One Handler serves every era of the protocol on one URL, choosing per
// request (see classify.go):
//
//   - 2026-07-28, stateless: every POST carries its protocol version and
//     client capabilities in params._meta and the standard Mcp-* headers;
//     each request is answered with JSON or with its own SSE stream, and a
//     client dropping the request cancels exactly that call (modern.go).
//   - 2025-03-26, 2025-06-18 and 2025-11-25 Streamable HTTP: initialize
//     creates a session (Mcp-Session-Id); GET opens the session's
//     standalone stream; DELETE ends it; streams are resumable with
//     Last-Event-ID (streamable.go).
//   - 2024-11-05 HTTP+SSE: a GET without a session id opens the legacy
//     event stream, whose endpoint event names this same URL with a
//     sessionId query parameter for the client's POSTs (legacy.go).
//
// Held streams (a listen, a GET stream, a 2024-11-05 event stream) on
// HTTP/1.x connections are taken over from net/http once their headers
// are out, so that an idle stream costs no handler goroutine (park.go).
//
// The MCP server logic lives behind the Engine interface (engine.go); the
// adapters/gosdk package serves an *mcp.Server of the official Go SDK
// through it.
//
// Guards run before any of that (guard.go): the Origin and Host checks
// against DNS rebinding, the request body limit, and the Accept and
// Content-Type checks. Every refusal has one status and one JSON-RPC code,
// listed in errors.go.
//
// Comments cite the MCP specification as "spec <version> <page>[#section]",
// the page https://modelcontextprotocol.io/specification/<version>/<page>:
// "spec 2025-11-25 basic/transports#session-management", say.
package httptransport
