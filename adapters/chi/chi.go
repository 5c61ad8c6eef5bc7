// Package chimcp mounts an MCP endpoint on chi.
//
// The endpoint is an http.Handler, usually from httptransport.New, that
// serves every protocol era on one URL, and chi middleware is already
// net/http middleware, so mounting is one line; what this package adds is
// route parameters that stay valid for as long as an MCP call runs:
//
//	r := chi.NewRouter()
//	r.Use(middleware.RequestID, middleware.Logger, middleware.Recoverer)
//	r.Route("/tenants/{tenant}", func(r chi.Router) {
//		h := httptransport.New(engine, nil)
//		// CORS in front of auth, so that browsers can read its challenges
//		// (r.Use(auth.RequireBearer(...)) works too, without that).
//		chimcp.Mount(r, "/mcp", h.WithCORS(auth.RequireBearer(verifier, authOpts)(h)))
//	})
//
// A tool handler reads the parameters with chi's own API on the context it
// is given, because the transport keeps the request's context values:
//
//	tenant := chi.URLParamFromCtx(ctx, "tenant")
//
// # Route parameters outlive the request
//
// chi recycles its route context (*chi.Context) when the request's handler
// returns, but an MCP call can outlive the HTTP request that carried it: a
// 2024-11-05 POST is answered 202 before the tool runs, and a 2025-era
// call keeps running when its client drops the connection. Handler (and
// so Mount) puts a clone of the route context in the request's context,
// so that chi.RouteContext, chi.URLParam and chi.URLParamFromCtx read
// stable values from any goroutine for the whole call.
//
// # chi middleware and streams
//
//   - middleware.Logger, middleware.Recoverer and middleware.RequestID
//     are fine. Logger logs a call's stream when it ends, with its
//     lifetime as its duration; a held stream (a listen, a GET stream, a
//     2024-11-05 stream) on HTTP/1.1 is logged when the transport takes it
//     over from net/http, right after its headers (httptransport's
//     DisableHijack keeps the old way). GetReqID(ctx) works in tool
//     handlers. Recoverer recovers panics on the request's goroutine only,
//     and go-sdk runs tool handlers on goroutines of its own:
//     adapters/gosdk recovers those (a panicking handler answers -32603
//     and is logged) unless its Options.KeepPanics is set.
//   - middleware.Compress is fine: it compresses JSON answers, leaves
//     text/event-stream alone (it is not in its default types), and its
//     writer passes flushes through, so every SSE event goes out at once.
//     Even with "text/event-stream" added to its types, events still go
//     out one by one, since its gzip writer flushes at every event, and a
//     compressed stream is never taken over; leave it out all the same, as
//     the transport marks streams no-transform for the proxies and clients
//     that expect them plain.
//   - middleware.Timeout cancels the request's context when the timeout
//     expires, and answers 504 if nothing was written yet. A 2026-07-28
//     call is cancelled on the spot, so every call longer than the timeout
//     dies. A 2025-era call is not cancelled by its request ending (the
//     spec says it must not be): its client gets the 504, or a cut stream,
//     while the tool runs on for nobody. Held streams survive it on
//     HTTP/1.1, since the handler returns once they are taken over, and
//     end with it on HTTP/2 or with DisableHijack. Mount the MCP endpoint
//     outside any Timeout group and bound tool work in the tool handler
//     instead; the transport's per-write deadline
//     (httptransport.Options.WriteTimeout) already drops clients that stop
//     reading.
//   - middleware.Throttle and similar admission limits count a call as one
//     request in flight for its whole life, and a held stream until it is
//     taken over.
package chimcp

import (
	"context"
	"net/http"

	"github.com/go-chi/chi/v5"
)

// Mount registers h at pattern on r for every method chi routes (the
// standard ones, and any added with chi.RegisterMethod). The transport
// serves POST, GET, DELETE and OPTIONS on that one URL and answers the
// others with 405 and Allow itself; a method chi does not know gets chi's
// own 405. Use it on a sub-router (r.Route, r.Group,
// r.Mount) or after r.With(...) to run middleware first:
//
//	chimcp.Mount(r.With(requireBearer), "/mcp", endpoint)
//
// The 2024-11-05 endpoint event names the URL as the client requested it,
// so the endpoint works under any prefix without configuration.
func Mount(r chi.Router, pattern string, h http.Handler) {
	r.Handle(pattern, Handler(h))
}

// Handler wraps h so that the request reaches it with a clone of chi's
// route context, which stays valid after the request's handler returns.
// Requests that did not come through a chi router pass through unchanged.
func Handler(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rctx := chi.RouteContext(r.Context()); rctx != nil {
			r = r.WithContext(context.WithValue(r.Context(), chi.RouteCtxKey, rctx.Clone()))
		}
		h.ServeHTTP(w, r)
	})
}
