package httptransport

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"sync"
	"time"
)

// ErrNoSession is returned by a SessionStore for an unknown or expired id.
var ErrNoSession = errors.New("httptransport: no such session")

// Session is a 2025-era or 2024-11-05 session as the engine sees it.
type Session struct {
	// ID is the session id: the Mcp-Session-Id header of 2025-era clients,
	// the sessionId query parameter of 2024-11-05 clients.
	ID string
	// Version is the protocol version negotiated by initialize.
	Version string
	// Legacy reports a 2024-11-05 HTTP+SSE session.
	Legacy bool

	mu    sync.Mutex
	state json.RawMessage
	dirty bool
}

// State returns the engine's state for the session, as last set.
func (s *Session) State() json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state
}

// SetState replaces the engine's state for the session. The transport saves
// it in the SessionStore, so that another instance can serve the session:
// at initialize, when a call ends (before its answer goes out) and after a
// POST's notifications (before its 202). A change made at another time (in
// OpenSession, from a goroutine of the engine's) is saved with the next of
// these.
func (s *Session) SetState(state json.RawMessage) {
	s.mu.Lock()
	s.state, s.dirty = state, true
	s.mu.Unlock()
}

// refreshState takes state, as another instance saved it, unless the
// engine changed the state here since it was last saved (that change is
// saved next, and wins). It reports whether the state changed.
func (s *Session) refreshState(state json.RawMessage) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dirty || bytes.Equal(s.state, state) {
		return false
	}
	s.state = state
	return true
}

// isDirty reports whether the state changed since the last takeDirty,
// leaving that to takeDirty.
func (s *Session) isDirty() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dirty
}

// takeDirty reports whether the state changed since the last call.
func (s *Session) takeDirty() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.dirty
	s.dirty = false
	return d
}

// SessionRecord is what a SessionStore keeps of a session: enough for any
// instance to serve it.
type SessionRecord struct {
	// ID is the session id (Mcp-Session-Id, or the 2024-11-05 sessionId).
	ID string `json:"id"`
	// Owner is the principal that opened the session
	// (identity.Info.Owner: issuer, NUL, subject; empty when anonymous).
	// Requests of any other principal are answered as if the session did
	// not exist.
	Owner string `json:"owner,omitempty"`
	// Version is the negotiated protocol version.
	Version string `json:"version"`
	// Legacy marks a 2024-11-05 (HTTP+SSE) session, served only on the
	// instance holding its event stream and only through its sessionId URL.
	Legacy bool `json:"legacy,omitempty"`
	// State is the engine's state of the session (Session.State), JSON
	// that the store keeps as it is.
	State json.RawMessage `json:"state,omitempty"`
	// Holder is the tag of the instance holding a 2024-11-05 session's
	// event stream, when that instance keeps a liveness record
	// (Liveness): once it stops renewing the record, other instances
	// answer the session's POSTs with 404, as its stream ended with it.
	// Empty otherwise.
	Holder string `json:"holder,omitempty"`
	// Pending marks a session whose initialize the engine has not
	// accepted yet: requests naming it are answered as if it did not
	// exist. The record is stored before the engine runs, so that the
	// Mcp-Session-Id on a response whose headers go out early names a
	// stored session.
	Pending bool `json:"pending,omitempty"`
}

// SessionStore keeps session records. Implementations must be safe for
// concurrent use. A shared store (Redis, a database) lets a 2025-era
// session be served by whichever instance a load balancer picks; streams
// and calls in flight stay on the instance that holds them.
type SessionStore interface {
	// Put creates or replaces a record that expires after ttl without a
	// further Put or Touch; ttl <= 0 means it never expires.
	Put(ctx context.Context, rec *SessionRecord, ttl time.Duration) error
	// Get returns the record, or ErrNoSession.
	Get(ctx context.Context, id string) (*SessionRecord, error)
	// Touch extends the record's life by ttl, or returns ErrNoSession.
	Touch(ctx context.Context, id string, ttl time.Duration) error
	// Delete removes the record; deleting a missing one is not an error.
	Delete(ctx context.Context, id string) error
}

// SessionRefresher is an optional interface of a shared SessionStore:
// TouchGet extends a record's life as Touch does and returns the record as
// Get does, in one round trip (Redis: GETEX). An instance serving a session
// shared with others reads the record at each request of the session, so
// that the state another instance saved (a log level, a client's
// notifications/initialized) is the state this one serves the request
// with; a store without it costs a Touch and a Get there.
type SessionRefresher interface {
	TouchGet(ctx context.Context, id string, ttl time.Duration) (*SessionRecord, error)
}

// newSessionID returns a cryptographically random id of visible ASCII
// (spec 2025-11-25 basic/transports#session-management): 26 base32 characters, 130 bits. Sessions get it behind
// their instance's tag (mintSessionID).
func newSessionID() string { return rand.Text() }

// mintSessionID returns a new session id: the instance's tag, then 130
// random bits (newSessionID). The tag lets an instance tell another's
// sessions from its own expired ones (foreign.go).
func (h *Handler) mintSessionID() string { return h.tag + newSessionID() }

// randomIDLen is the length of newSessionID's ids.
const randomIDLen = 26

// validSessionID reports whether id holds only visible ASCII (0x21-0x7E).
func validSessionID(id string) bool {
	if id == "" || len(id) > 256 {
		return false
	}
	for i := 0; i < len(id); i++ {
		if id[i] < 0x21 || id[i] > 0x7e {
			return false
		}
	}
	return true
}

// MemorySessionStore is the default SessionStore: records in a map, each
// dropped when its time is up. It implements SessionRelay and Liveness
// within the process, so handlers sharing one store in a process relay to
// each other and answer for each other's calls.
type MemorySessionStore struct {
	mu        sync.Mutex
	records   map[string]memoryRecord
	instances map[string]time.Time // liveness records' expiries (liveness.go)
	now       func() time.Time
	relay     memoryRelay // memrelay.go
}

type memoryRecord struct {
	rec     SessionRecord
	expires time.Time // zero: never
}

// NewMemorySessionStore returns an empty in-memory store.
func NewMemorySessionStore() *MemorySessionStore {
	return &MemorySessionStore{records: make(map[string]memoryRecord), instances: make(map[string]time.Time), now: time.Now}
}

func (m *MemorySessionStore) deadline(ttl time.Duration) time.Time {
	if ttl <= 0 {
		return time.Time{}
	}
	return m.now().Add(ttl)
}

// Put implements SessionStore.
func (m *MemorySessionStore) Put(_ context.Context, rec *SessionRecord, ttl time.Duration) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.records[rec.ID] = memoryRecord{rec: *rec, expires: m.deadline(ttl)}
	return nil
}

// Get implements SessionStore.
func (m *MemorySessionStore) Get(_ context.Context, id string) (*SessionRecord, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.records[id]
	if !ok || (!r.expires.IsZero() && m.now().After(r.expires)) {
		delete(m.records, id)
		return nil, ErrNoSession
	}
	rec := r.rec
	return &rec, nil
}

// Touch implements SessionStore.
func (m *MemorySessionStore) Touch(_ context.Context, id string, ttl time.Duration) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.records[id]
	if !ok || (!r.expires.IsZero() && m.now().After(r.expires)) {
		delete(m.records, id)
		return ErrNoSession
	}
	r.expires = m.deadline(ttl)
	m.records[id] = r
	return nil
}

// TouchGet implements SessionRefresher.
func (m *MemorySessionStore) TouchGet(_ context.Context, id string, ttl time.Duration) (*SessionRecord, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.records[id]
	if !ok || (!r.expires.IsZero() && m.now().After(r.expires)) {
		delete(m.records, id)
		return nil, ErrNoSession
	}
	if ttl > 0 {
		r.expires = m.deadline(ttl)
		m.records[id] = r
	}
	rec := r.rec
	return &rec, nil
}

// Delete implements SessionStore.
func (m *MemorySessionStore) Delete(_ context.Context, id string) error {
	m.mu.Lock()
	delete(m.records, id)
	m.mu.Unlock()
	return nil
}

// Sweep drops expired session records, and expired liveness records
// (Liveness), and returns how many session records it dropped.
func (m *MemorySessionStore) Sweep() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	now, n := m.now(), 0
	for id, r := range m.records {
		if !r.expires.IsZero() && now.After(r.expires) {
			delete(m.records, id)
			n++
		}
	}
	for instance, expires := range m.instances {
		if !now.Before(expires) {
			delete(m.instances, instance)
		}
	}
	return n
}

// Len returns the number of records held, expired or not.
func (m *MemorySessionStore) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.records)
}
