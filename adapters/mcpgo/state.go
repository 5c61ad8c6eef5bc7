package mcpgo

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/internal/logval"
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
		return st, fmt.Errorf("mcpgo: decoding the state of session %s: %w", logval.String(sess.ID), err)
	}
	return st, nil
}

// callState is loadState for a call of sess, whose registered copy here
// (nil if none) keeps the last decoding: calls of a session mostly find
// its state as the last one left it.
func callState(sess *httptransport.Session, long *session) (sessionState, error) {
	raw := sess.State()
	if long != nil {
		long.mu.Lock()
		if long.cacheRaw != nil && bytes.Equal(long.cacheRaw, raw) {
			st := long.cacheSt.clone()
			long.mu.Unlock()
			return st, nil
		}
		long.mu.Unlock()
	}
	st, err := loadState(sess)
	if err != nil || long == nil || len(raw) == 0 {
		return st, err
	}
	long.mu.Lock()
	long.cacheRaw, long.cacheSt = bytes.Clone(raw), st.clone()
	long.mu.Unlock()
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
