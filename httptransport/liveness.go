package httptransport

import (
	"context"
	"time"
)

// Liveness is an optional interface of a shared SessionStore
// (Options.Sessions): each instance keeps a liveness record in it, renewed
// three times per Options.LivenessPeriod and lasting one period, so that
// the other instances can tell when it has stopped (a crash, a SIGKILL, a
// machine or its network lost) and answer for what it held:
//
//   - a client that resumes (Last-Event-ID) the stream of a call the
//     stopped instance was running gets a JSON-RPC error for the call on
//     the resumed stream (-32000, "the instance serving this call
//     stopped"), instead of waiting for an answer that cannot come;
//   - the session's own messages are no longer forwarded to the GET stream
//     the stopped instance held, but kept for the client's next GET;
//   - a 2024-11-05 session whose event stream it held is gone: a POST for
//     it gets 404, not a 202 for a message no instance will serve.
//
// Each happens within twice the period of the instance stopping. The
// session itself goes on: its record is in the store, and any instance
// serves it. An instance cut off from the store for a whole period is
// taken for stopped too, as the others cannot tell the difference.
//
// It is an interface of its own, not methods of SessionStore, so that
// stores written before it still compile: with a store that lacks it,
// nothing changes, and a call on an instance that stops is never
// answered. MemorySessionStore implements it (instances are handlers
// sharing it in one process), and so does package redisstore.
//
// Implementations must be safe for concurrent use.
type Liveness interface {
	// Renew creates or replaces instance's record, expiring ttl from now.
	// instance is a short token of letters and digits, unique per
	// Handler.
	Renew(ctx context.Context, instance string, ttl time.Duration) error
	// Alive reports whether instance's record exists and has not expired.
	Alive(ctx context.Context, instance string) (bool, error)
}

// Renew implements Liveness.
func (m *MemorySessionStore) Renew(_ context.Context, instance string, ttl time.Duration) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.instances[instance] = m.now().Add(ttl)
	return nil
}

// Alive implements Liveness.
func (m *MemorySessionStore) Alive(_ context.Context, instance string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	expires, ok := m.instances[instance]
	if ok && !m.now().Before(expires) {
		delete(m.instances, instance)
		ok = false
	}
	return ok, nil
}
