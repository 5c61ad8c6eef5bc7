package mcpgo

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpmount/mcpmount/httptransport"
)

// sessionState is what the engine keeps of a 2025-era or 2024-11-05 session
// in httptransport.Session's state, so that any instance sharing the
// SessionStore rebuilds the same mcp-go session view: what initialize
// negotiated, the log level and the resource subscriptions.
type sessionState struct {
	Initialized        bool                    `json:"initialized,omitempty"`
	ProtocolVersion    string                  `json:"protocolVersion,omitempty"`
	LogLevel           mcp.LoggingLevel        `json:"logLevel,omitempty"`
	ClientInfo         *mcp.Implementation     `json:"clientInfo,omitempty"`
	ClientCapabilities *mcp.ClientCapabilities `json:"clientCapabilities,omitempty"`
	Subscriptions      []string                `json:"subscriptions,omitempty"`
}

// loadState decodes a session's stored state; an empty one is the zero
// state.
func loadState(sess *httptransport.Session) (sessionState, error) {
	var st sessionState
	raw := sess.State()
	if len(raw) == 0 {
		return st, nil
	}
	if err := json.Unmarshal(raw, &st); err != nil {
		return st, fmt.Errorf("mcpgo: decoding the state of session %q: %w", truncate(sess.ID), err)
	}
	return st, nil
}

// saveState stores st as the session's state.
func saveState(sess *httptransport.Session, st *sessionState) {
	raw, err := json.Marshal(st)
	if err == nil {
		sess.SetState(raw)
	}
}

// clone returns a copy of st sharing nothing mutable with it.
func (st sessionState) clone() sessionState {
	st.Subscriptions = slices.Clone(st.Subscriptions)
	return st
}

// truncate shortens a value taken from a request for a log line or an
// error message.
func truncate(s string) string {
	const max = 64
	if len(s) > max {
		return s[:max] + "..."
	}
	return s
}
