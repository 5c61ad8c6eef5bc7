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
// whose stream dropped can resume it with Last-Event-ID (digest 1.6). Event
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
}

// eventOverhead is what the store counts per event beside its data: the
// event's place in its stream and in the eviction order, and its share of
// a stream entry, so that a session of many short streams stays bounded.
const eventOverhead = 128

// MemoryEventStore is the default EventStore: bounded, in memory.
type MemoryEventStore struct {
	max      int
	mu       sync.Mutex
	sessions map[string]*memSession
}

type memSession struct {
	streams map[string]*memStream
	order   []memRef // append order, for eviction
	bytes   int
}

type memStream struct {
	first  int // index of events[0]
	events [][]byte
}

type memRef struct {
	stream string
	size   int
}

// NewMemoryEventStore returns an empty store; nil opts means defaults.
func NewMemoryEventStore(opts *MemoryEventStoreOptions) *MemoryEventStore {
	m := &MemoryEventStore{max: 1 << 20, sessions: make(map[string]*memSession)}
	if opts != nil && opts.MaxBytesPerSession > 0 {
		m.max = opts.MaxBytesPerSession
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
	s.order = append(s.order, memRef{stream: stream, size: size})
	s.bytes += size
	for s.bytes > m.max && len(s.order) > 1 {
		ref := s.order[0]
		s.order = s.order[1:]
		s.bytes -= ref.size
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
	return nil
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
	delete(m.sessions, session)
	m.mu.Unlock()
	return nil
}
