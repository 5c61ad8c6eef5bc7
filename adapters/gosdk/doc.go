// Package gosdk serves an *mcp.Server of the official Go SDK
// (github.com/modelcontextprotocol/go-sdk) through the mcpmount transport,
// so existing tools, resources and prompts mount unchanged:
//
//	server := mcp.NewServer(&mcp.Implementation{Name: "svc", Version: "1.0.0"}, nil)
//	mcp.AddTool(server, &mcp.Tool{Name: "greet"}, greet)
//	engine := gosdk.NewEngine(server, nil)
//	defer engine.Close()
//	mux.Handle("/mcp", httptransport.New(engine, nil))
//
// Each call runs on its own SDK connection, so the notifications a tool
// sends (progress, log messages) reach that call's stream and no other.
// 2025-era sessions keep the SDK's session state (the initialize
// parameters, the log level, resource subscriptions) in the transport's
// session store, so any instance can serve them. A session's own SDK
// session, outside calls, is connected only while the client needs it
// (Options.SessionLinger): it takes the client's notifications (so the
// server's InitializedHandler runs), holds resource subscriptions, and
// sends requests made outside any call (roots/list from an
// InitializedHandler, say), whose answers come back to it; an idle session
// costs no goroutine. List changes reach every open session through the
// engine's one watcher session. A 2026-07-28
// subscriptions/listen runs through the SDK until it acknowledges it; then
// its SDK session ends, the stream is held (httptransport.ErrHold), and the
// engine's one watcher session feeds it: the watcher sees every list
// change and is subscribed once to each resource URI that some listen
// watches, and a few workers write each change to the listens whose filter
// holds it. An idle listen costs the engine no SDK session and no
// goroutine; a client that stops reading holds at most one pending
// notification per type and URI it watches (see hub.go).
//
// A 2026-07-28 request for a method behind a capability the server's
// server/discover does not advertise (prompts/list on a server without
// prompts, say) gets -32601, which the transport sends with 404; 2025-era
// calls get the SDK's own answer (an empty list), as the 2025 spec allows.
//
// With ServerOptions.KeepAlive the SDK pings every session it connects: a
// 2025-era session's pings go to its GET stream, a call's to the call's
// stream; a 2026-07-28 call's connection answers them itself (the client is
// there while the call's request is open), so a long call is not cut.
//
// The SDK logs three Info lines for every connection it serves, and the
// engine serves each call on a connection of its own: a server whose
// ServerOptions.Logger logs at Info gets them for every call, unless its
// handler is wrapped in FilterConnectionLogs.
//
// The caller's identity from package auth (package identity) reaches tool
// handlers as req.Extra.TokenInfo, with the HTTP header as req.Extra.Header.
package gosdk
