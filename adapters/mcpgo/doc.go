// Package mcpgo serves a mark3labs/mcp-go server (*server.MCPServer)
// through mcpmount's transport (httptransport): every protocol era on one
// URL, bearer-token verification, resumable 2025-era streams, and every
// notification delivered to the call it belongs to.
//
// It is a Go module of its own, so that users of the main module never
// download mcp-go.
//
// Each call runs with a ClientSession of its own (mcp-go's
// server.MCPServer.WithContext), with its own notification channel, which
// the engine drains to the call's stream: a tool's progress and log
// notifications reach that call's client, all of them, in order, and
// before its answer. A 2025-era session is registered with the server
// (RegisterSession) on the instance where it is open, so that list changes
// and notifications sent to it reach its GET stream; its log level, client
// info and resource subscriptions are kept in the transport's session
// state, so another instance sharing the SessionStore serves it the same.
package mcpgo
