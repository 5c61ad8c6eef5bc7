package httptransport

import (
	"context"
	"errors"
	"sync"
)

// ErrEventsGone is returned by an EventStore that no longer holds every
// event a resuming client asks for, or never knew the stream.
var ErrEventsGone = errors.New("httptransport: events no longer available")

// EventStore keeps the events of 2025-era session streams so that a client
// whose stream dropped can resume it with Last-Event-ID (spec 2025-11-25 basic/transports#resumability-and-redelivery). Event
// ids are "<stream>_<index>", with indexes counting from 1 in each stream.
// Implementations must be safe for concurrent use.
type EventStore interface {
	// Append records the event with the given index; data is nil for a
	// priming event.
	Append(ctx context.Context, session, stream string, index int, data []byte) error
	// After returns the data of the stream's events after index, in
	// order, or ErrEventsGone if it does not hold all of them.
	After(ctx context.Context, session, stream string, index int) ([][]byte, error)
	// SessionClosed forgets a session's events.
	SessionClosed(ctx context.Context, session string) error
}

// MemoryEventStoreOptions configures NewMemoryEventStore.
type MemoryEventStoreOptions struct {
	// MaxBytesPerSession bounds what the store keeps per session: the
	// events' data and about 128 bytes of bookkeeping per event. The
	// oldest events go first, and with a stream's last event its entry.
	// Zero means 1 MiB.
	MaxBytesPerSession int

	// MaxBytes bounds what the store keeps across all sessions, counted
	// the same way: past it the oldest events of the whole store go first,
	// whichever session they belong to. Zero means 64 MiB.
	MaxBytes int
}

// eventOverhead is what the store counts per event beside its data: the
// event's place in its stream and in the eviction order, and its share of
// a stream entry, so that a session of many short streams stays bounded.
const eventOverhead = 128

// MemoryEventStore is the default EventStore: bounded per session and in
// all, in memory.
type MemoryEventStore struct {
	max, maxTotal int
	mu            sync.Mutex
	sessions      map[string]*memSession
	total         int        // bytes held across sessions, counted as max counts them
	order         []totalRef // append order across sessions, for the bound on all
	live          int        // events held: order's entries that are not stale
	seq           uint64     // numbers the events in append order
}

type memSession struct {
	streams map[string]*memStream
	order   []memRef // append order, for eviction
	bytes   int
}

// totalRef is an event in the store's order across sessions. It is stale
// once the event was evicted by its session's own bound or the session
// closed: its session's oldest event is then a later one.
type totalRef struct {
	session string
	seq     uint64
}

type memStream struct {
	first  int // index of events[0]
	events [][]byte
}

type memRef struct {
	stream string
	size   int
	seq    uint64
}

// NewMemoryEventStore returns an empty store; nil opts means defaults.
func NewMemoryEventStore(opts *MemoryEventStoreOptions) *MemoryEventStore {
	m := &MemoryEventStore{max: 1 << 20, maxTotal: 64 << 20, sessions: make(map[string]*memSession)}
	if opts != nil && opts.MaxBytesPerSession > 0 {
		m.max = opts.MaxBytesPerSession
	}
	if opts != nil && opts.MaxBytes > 0 {
		m.maxTotal = opts.MaxBytes
	}
	return m
}

// Append implements EventStore.
func (m *MemoryEventStore) Append(_ context.Context, session, stream string, index int, data []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.sessions[session]
	if s == nil {
		s = &memSession{streams: make(map[string]*memStream)}
		m.sessions[session] = s
	}
	st := s.streams[stream]
	if st == nil {
		st = &memStream{first: index}
		s.streams[stream] = st
	}
	if index != st.first+len(st.events) {
		return errors.New("httptransport: event index out of order")
	}
	st.events = append(st.events, data)
	size := len(data) + eventOverhead
	m.seq++
	s.order = append(s.order, memRef{stream: stream, size: size, seq: m.seq})
	s.bytes += size
	m.total += size
	m.order = append(m.order, totalRef{session: session, seq: m.seq})
	m.live++
	for s.bytes > m.max && len(s.order) > 1 {
		m.evictOldest(s)
	}
	for m.total > m.maxTotal && len(m.order) > 1 {
		ref := m.order[0]
		m.order[0] = totalRef{}
		m.order = m.order[1:]
		if old := m.sessions[ref.session]; old != nil && len(old.order) > 0 && old.order[0].seq == ref.seq {
			m.evictOldest(old)
			if len(old.order) == 0 {
				delete(m.sessions, ref.session)
			}
		}
	}
	// Entries made stale by the sessions' own bounds and closings wait in
	// the order until the bound on all reaches them: drop them when they
	// outnumber the events held, so the order stays proportionate.
	if len(m.order) > 2*m.live+1024 {
		m.compact()
	}
	return nil
}

// evictOldest drops session s's oldest event, and with a stream's last
// event its entry.
func (m *MemoryEventStore) evictOldest(s *memSession) {
	ref := s.order[0]
	s.order = s.order[1:]
	s.bytes -= ref.size
	m.total -= ref.size
	m.live--
	old := s.streams[ref.stream]
	old.events[0] = nil
	old.events = old.events[1:]
	old.first++
	if len(old.events) == 0 {
		// Nothing left to replay: a later event starts the stream's
		// entry afresh, and After from before it is gone either way.
		delete(s.streams, ref.stream)
	}
}

// compact drops the stale entries of the order across sessions.
func (m *MemoryEventStore) compact() {
	held := make(map[uint64]bool, m.live)
	for _, s := range m.sessions {
		for _, ref := range s.order {
			held[ref.seq] = true
		}
	}
	order := make([]totalRef, 0, m.live)
	for _, ref := range m.order {
		if held[ref.seq] {
			order = append(order, ref)
		}
	}
	m.order = order
}

// After implements EventStore.
func (m *MemoryEventStore) After(_ context.Context, session, stream string, index int) ([][]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.sessions[session]
	if s == nil {
		return nil, ErrEventsGone
	}
	st := s.streams[stream]
	last := 0
	if st != nil {
		last = st.first + len(st.events) - 1
	}
	if st == nil || index < st.first-1 || index > last {
		return nil, ErrEventsGone
	}
	return append([][]byte(nil), st.events[index-st.first+1:]...), nil
}

// SessionClosed implements EventStore.
func (m *MemoryEventStore) SessionClosed(_ context.Context, session string) error {
	m.mu.Lock()
	if s := m.sessions[session]; s != nil {
		m.total -= s.bytes
		m.live -= len(s.order)
		delete(m.sessions, session)
	}
	m.mu.Unlock()
	return nil
}
