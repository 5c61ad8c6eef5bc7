// Package stdio serves an MCP server that speaks the stdio transport
// (newline-delimited JSON-RPC on stdin and stdout) through the mcpmount
// transport, by running it as a child process: any stdio server, in any
// language, gets every HTTP era, auth, limits and observability.
//
//	engine, err := stdio.New(ctx, stdio.Command{Path: "npx", Args: []string{"-y", "@modelcontextprotocol/server-everything"}}, nil)
//	if err != nil { ... }
//	defer engine.Close()
//	mux.Handle("/mcp", httptransport.New(engine, nil))
//
// # One shared child
//
// New starts the child and initializes it at the newest protocol version
// the child accepts (the engine asks for 2025-11-25; a child answers with
// it or an older one it speaks, as the lifecycle's version negotiation
// has it). Every call then shares that one child: each request goes to it
// under an id of the engine's, and its progress token under a token of
// the engine's, so that calls from any number of clients, with colliding
// ids and tokens, each get their own answer and progress notifications.
// A call cancelled (a 2026-07-28 client dropping its request, or a
// 2025-era notifications/cancelled) becomes notifications/cancelled to
// the child.
//
// 2025-era and 2024-11-05 sessions get the child's initialize result (at
// the version the client asked for when the child speaks it or a newer
// one). 2026-07-28 requests are translated: server/discover is answered
// from the initialize result, subscriptions/listen from the child's
// notifications, other requests go to the child without 2026-07-28's
// _meta keys and come back as complete results.
//
// The child's list changes go to every session's standalone stream and
// to the listens that asked for them; its resource updates to the
// sessions and listens subscribed to that resource (the child is
// subscribed once per resource, and unsubscribed when the last
// subscriber goes). Its log messages belong to no client and are dropped
// (logging/setLevel is answered and ignored); the logging and tasks
// capabilities are not advertised.
//
// # Server-to-client requests: the routing rule
//
// A request from a stdio child (sampling/createMessage,
// elicitation/create, roots/list) carries nothing that ties it to the
// call it serves. The engine's rule:
//
//   - The shared child is initialized with no client capabilities, so a
//     well-behaved child sends none of these requests (the everything
//     server does not even list its sampling tool); any it sends are
//     refused with -32601. ping is answered.
//   - With Options.ChildPerSession, each 2025-era or 2024-11-05 session
//     gets a child of its own, initialized with the session's own
//     initialize request (its capabilities and client info). Its requests
//     go to the session's one call in flight, when it has exactly one
//     (the client's answer comes back on that call; if the call ends
//     first, the child is answered with -32603), else to the session's
//     standalone stream (the answer comes back through Reply).
//     At most Options.MaxSessionChildren such children run at once.
//     2026-07-28 and stateless calls, which cannot take requests, still
//     use the shared child.
//
// # Supervision
//
// A child that ends (crash, exit, stdout closed, a line past
// Options.MaxLineBytes) fails its calls in flight with -32603 ("the MCP
// server process ended while serving the call") and is started again after
// a backoff that doubles from Options.MinBackoff to Options.MaxBackoff.
// Calls that arrive meanwhile wait for the new child; while a start has
// failed they fail at once with its error. The child's stderr is logged
// line by line, each cut at Options.StderrLineBytes, at most
// Options.StderrBytesPerSecond of it (the lines past that are counted).
// Close stops every
// child as the stdio transport's shutdown says (stdin closed, then
// SIGTERM, then SIGKILL, Options.StopTimeout apart, to the child's
// process group) and waits for each, so none is left a zombie.
package stdio
