package httptransport

import "context"

// SessionRelay is an optional interface of a shared SessionStore
// (Options.Sessions): it carries messages between the instances serving
// one session. What a client POSTs about a call in flight to an instance
// other than the one running the call (its answer to a server-to-client
// request, notifications/cancelled) reaches that instance; the session's
// own messages (an engine's list changes, resource updates, requests made
// outside any call) reach the instance holding its GET stream; a
// 2024-11-05 client's POSTs reach the instance holding its event stream.
// With it, sessions need no sticky routing; without it, those messages
// reach their call or stream only on the instance the client happens to
// reach.
//
// Each session id names one channel. On Redis, say, Publish is PUBLISH on
// a channel named after the session id, and Subscribe a SUBSCRIBE to that
// channel whose messages a reader goroutine hands to deliver. An instance
// subscribes while it serves the session, and receives its own publishes
// too (they are harmless there). Delivery is best effort and at most once:
// a message published while no instance listens, or lost on the way, is
// gone, and the call that waited for it is left to its own timeout or to
// the end of the session, as when the client never answers. Messages are
// JSON-RPC messages: a client's as it sent them, after the publishing
// instance checked that the client owns the session, or the transport's
// own (methods starting "mcpmount/"), which a client cannot have
// published.
//
// Implementations must be safe for concurrent use.
type SessionRelay interface {
	// Publish sends msg to every current subscriber of sessionID's channel,
	// on any instance. ctx bounds the call (the transport gives it the
	// store timeout, 5 seconds); an error is logged and the client's POST
	// answered as if the message had been delivered. Publish must not
	// retain msg after it returns.
	Publish(ctx context.Context, sessionID string, msg []byte) error
	// Subscribe calls deliver with each message published on sessionID's
	// channel from now until unsubscribe is called. ctx bounds the
	// subscribing only, not the subscription's life. deliver must not
	// block long (it routes the message to a call here, or drops it) and
	// must not modify msg; it may be called from any goroutine, one message
	// at a time or concurrently. unsubscribe may be called more than once;
	// a delivery already under way when it is called may still complete.
	// A failed Subscribe is logged and the session still served here.
	Subscribe(ctx context.Context, sessionID string, deliver func(msg []byte)) (unsubscribe func(), err error)
}
