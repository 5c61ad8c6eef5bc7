package redisstore

import (
	"context"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpmount/mcpmount/httptransport"
)

// Options configures New. The zero value of each field means its default.
type Options struct {
	// Prefix begins every key and channel name the store uses. Zero means
	// "mcp:". Give instances of different servers sharing one Redis
	// different prefixes. With Redis Cluster, the prefix must not contain
	// '{' (the store puts a session's event keys in one hash slot with a
	// hash tag).
	Prefix string

	// MaxBytesPerSession bounds the events the store keeps per session:
	// their data and 128 bytes of bookkeeping per event, as
	// httptransport.MemoryEventStore counts. The oldest events of the
	// session go first, whatever their stream, but never the newest one.
	// Zero means 1 MiB.
	MaxBytesPerSession int

	// EventTTL is how long a session's events outlive its last Append: a
	// stream's events expire EventTTL after its last event, and the
	// session's bookkeeping EventTTL after the last event of any of its
	// streams, so that the events of a session whose instance crashed
	// (and never called SessionClosed) do not stay in Redis. Keep it at
	// least the handlers' SessionIdleTimeout, or a client resuming a
	// stream that was quiet that long finds its events gone. Zero means
	// one hour; there is no "never". Redis counts it in milliseconds.
	EventTTL time.Duration
}

// Store keeps mcpmount's 2025-era sessions, relays and stream events in
// Redis: it implements httptransport.SessionStore,
// httptransport.SessionRelay, httptransport.EventStore (and
// httptransport.BatchEventStore, which pipelines many appends) and
// httptransport.Liveness. Give every instance its own Store, built on its
// own client, and pass it as both Options.Sessions and Options.Events.
//
// Keys, under Options.Prefix:
//
//	session:<id>                        the session record, as JSON, expiring as the transport asks
//	instance:<tag>                      an instance's liveness record, expiring a LivenessPeriod after its last renewal
//	events:<n>:{<session>}              the first kept index of each stream, and the bytes kept
//	events:<n>:{<session>}#             the order of the session's events, oldest first
//	events:<n>:{<session>}:<stream>     a stream's kept events, oldest first
//
// where <n> is the length of the session id; every events key expires
// after Options.EventTTL. The relay publishes on the channel
// relay:<session id>.
//
// The client must be a *redis.Client, a failover client or a
// *redis.ClusterClient; a *redis.Ring is not supported (its channels live
// on different shards, and Subscribe fails).
//
// A Store is safe for concurrent use. Close ends its relay; the client is
// the caller's to close, after the Store.
type Store struct {
	client   redis.UniversalClient
	prefix   string
	maxBytes int
	eventTTL time.Duration

	relay   relay          // relay.go
	decoded decodedRecords // decoded.go
}

var (
	_ httptransport.SessionStore = (*Store)(nil)
	_ httptransport.SessionRelay = (*Store)(nil)
	_ httptransport.EventStore   = (*Store)(nil)
	_ httptransport.Liveness     = (*Store)(nil)

	_ httptransport.BatchEventStore = (*Store)(nil)
)

// New returns a Store on client; nil opts means defaults.
func New(client redis.UniversalClient, opts *Options) *Store {
	var o Options
	if opts != nil {
		o = *opts
	}
	s := &Store{
		client:   client,
		prefix:   o.Prefix,
		maxBytes: o.MaxBytesPerSession,
		eventTTL: o.EventTTL,
	}
	if s.prefix == "" {
		s.prefix = "mcp:"
	}
	if s.maxBytes <= 0 {
		s.maxBytes = 1 << 20
	}
	if s.eventTTL <= 0 {
		s.eventTTL = time.Hour
	}
	s.eventTTL = max(s.eventTTL, time.Millisecond) // Redis counts in milliseconds
	s.relay.init()
	return s
}

// Close ends the store's relay: its subscriptions end and its goroutines
// return (at once, but for a connection attempt under way, which it waits
// for up to the client's ReadTimeout). Later Subscribe calls fail; the
// other methods keep working as long as the client does. Close does not
// close the client.
func (s *Store) Close() error { return s.relay.close() }

func (s *Store) sessionKey(id string) string { return s.prefix + "session:" + id }

func (s *Store) channel(sessionID string) string { return s.prefix + "relay:" + sessionID }

// eventsKey is the key of a session's stream bookkeeping; the keys of its
// order and of its streams begin with it. The length of the id before it
// keeps the keys of any two sessions apart whatever their ids hold, and
// the braces put them in one Redis Cluster hash slot, as long as the id
// holds no '}' (the transport mints base32 ids).
func (s *Store) eventsKey(session string) string {
	return s.prefix + "events:" + strconv.Itoa(len(session)) + ":{" + session + "}"
}

// storeCtx bounds what the store does on its own behalf (the relay's
// SUBSCRIBEs and UNSUBSCRIBEs), as the transport bounds its calls.
func storeCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), 5*time.Second)
}
