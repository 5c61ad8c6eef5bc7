package output

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/mcpmount/mcpmount/jsonrpc"
)

// Config is what the streams and relays of one handler share, built whole
// by the handler from its options: its delays, its event store and its
// hooks into the handler. The zero value has no delays and no store; its
// hooks are nil, so a handler sets them all.
type Config struct {
	// HeaderFlushDelay is how long a silent response waits before its
	// headers go out (Options.HeaderFlushDelay); 0: not at all.
	HeaderFlushDelay time.Duration
	// KeepAlive is the interval of keep-alive comments; 0: none.
	KeepAlive time.Duration
	// Retry is the retry an SSE priming event carries; 0: none.
	Retry time.Duration
	// WriteTimeout bounds each write to a client; 0: no bound.
	WriteTimeout time.Duration
	// NotifyDelay is how long a notification may wait for the messages
	// after it before it is flushed (Options.NotificationFlushDelay); 0:
	// never.
	NotifyDelay time.Duration
	// Events keeps a resumable stream's events; nil: none are kept.
	Events Store
	// Closing reports whether the handler's Shutdown has begun.
	Closing func() bool
	// Warn logs a warning, as the handler's log limiter allows.
	Warn func(msg string, args ...any)
	// WarnNoFlush logs, once per handler, that w cannot flush.
	WarnNoFlush func(w http.ResponseWriter)
	// StoreCtx bounds the context of a replay from Events.
	StoreCtx func(parent context.Context) (context.Context, context.CancelFunc)
	// AppendCtx is the context of an append to Events: bounded as
	// StoreCtx's, and not ended by the end of the stream's session, so
	// that an event sent as its session ends is recorded all the same
	// (the session's events are forgotten once its streams have ended).
	AppendCtx func() (context.Context, context.CancelFunc)
}

// Store is what a stream needs of an event store (httptransport.EventStore).
type Store interface {
	// Append records the event with the given index; data is nil for a
	// priming event.
	Append(ctx context.Context, session, stream string, index int, data []byte) error
	// After returns the data of the stream's events after index.
	After(ctx context.Context, session, stream string, index int) ([][]byte, error)
}

// Session is what a resumable stream needs of the session it belongs to.
type Session interface {
	// ID is the session id, under which its events are stored.
	ID() string
	// Context is the session's context, for the event store's calls.
	Context() context.Context
	// Resumable reports whether its streams' events carry ids and are
	// stored (not a 2024-11-05 session).
	Resumable() bool
	// Disconnects reports whether a server-side disconnect may be sent on
	// its streams (a 2025-11-25 session or later).
	Disconnects() bool
	// RecordsCalls reports whether a call stream of the session keeps,
	// beside its events, the id of the request it answers (CallRecord), so
	// that another instance can answer the call should this one stop.
	RecordsCalls() bool
}

// callRecordSuffix ends the name CallRecord gives a call stream's record.
const callRecordSuffix = ".call"

// CallRecord is the name under which the event store keeps, as the one
// event of a stream of that name, the id of the request that call stream
// answers (raw JSON): the stream's first event with an id writes it, for
// another instance to answer the call if this one stops before it does.
// The name is no stream's (stream ids hold letters and digits).
func CallRecord(stream string) string { return stream + callRecordSuffix }

// IsCallRecord reports whether stream is a name CallRecord made.
func IsCallRecord(stream string) bool { return strings.HasSuffix(stream, callRecordSuffix) }

// ErrStreamClosed is returned by Send once the output has ended.
var ErrStreamClosed = errors.New("httptransport: stream closed")

// ErrNoStream is returned by Send for a server-to-client request when the
// client takes only JSON.
var ErrNoStream = errors.New("httptransport: no stream to the client for this request")

// ErrConflict is returned by Stream.Attach when a response is attached
// already.
var ErrConflict = errors.New("output: a response is attached already")

// ErrUnknownEventID is returned by Stream.Attach when the event store no
// longer has the events to replay.
var ErrUnknownEventID = errors.New("output: the events to replay are not kept")

// codeRequestCancelled is the code of the answer a JSON-only client gets
// for a call that ended without a response (Stream.Cut): MCP defines none,
// this is LSP's RequestCancelled.
const codeRequestCancelled = -32800

// ErrRequestCancelled answers a JSON-only client's call that ended without
// a response.
var ErrRequestCancelled = jsonrpc.Errorf(codeRequestCancelled, "request cancelled")

// ErrServerShutdown answers a call that Shutdown ended before it was done
// (Stream.Cut): our choice of code, -32000 (implementation-defined server
// error, JSON-RPC 2.0 section 5.1), so that the client may send it again.
var ErrServerShutdown = jsonrpc.Errorf(jsonrpc.CodeServerError, "server shutting down: the request was not completed; send it again")

// ErrorBody encodes the error response to id carrying e; id may be zero
// (absent).
func ErrorBody(id jsonrpc.ID, e *jsonrpc.Error) []byte {
	b, err := jsonrpc.NewError(id, e).Encode()
	if err != nil {
		// An *Error always encodes unless Data is invalid JSON.
		b, _ = jsonrpc.NewError(id, jsonrpc.Errorf(e.Code, e.Message)).Encode()
	}
	return b
}

// answerBody encodes resp, or an internal error answering its request
// when it cannot be encoded.
func answerBody(resp *jsonrpc.Message) []byte {
	data, err := resp.Encode()
	if err != nil {
		return ErrorBody(resp.ID, jsonrpc.Errorf(jsonrpc.CodeInternalError, "encoding response: "+err.Error()))
	}
	return data
}

// WriteJSON answers on w with status and body, a JSON document.
func WriteJSON(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
