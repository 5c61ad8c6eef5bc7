package httptransport

import (
	"context"
	"sync"
	"sync/atomic"
)

// memoryRelay is MemorySessionStore's SessionRelay: the subscribers of
// each session's channel, in this process.
type memoryRelay struct {
	mu   sync.Mutex
	subs map[string]map[*memorySub]struct{} // by session id
}

type memorySub struct {
	deliver func(msg []byte)
	gone    atomic.Bool // unsubscribed: deliver no more
}

// Publish implements SessionRelay: it calls each subscriber of sessionID's
// channel in this process, in turn, before it returns (outside the
// store's lock, so a subscriber may use the store).
func (m *MemorySessionStore) Publish(_ context.Context, sessionID string, msg []byte) error {
	m.relay.mu.Lock()
	subs := make([]*memorySub, 0, len(m.relay.subs[sessionID]))
	for s := range m.relay.subs[sessionID] {
		subs = append(subs, s)
	}
	m.relay.mu.Unlock()
	if len(subs) == 0 {
		return nil
	}
	msg = append([]byte(nil), msg...) // the caller may reuse its buffer
	for _, s := range subs {
		if !s.gone.Load() {
			s.deliver(msg)
		}
	}
	return nil
}

// Subscribe implements SessionRelay, in this process: handlers sharing
// the store (several in one process, as in tests) reach each other.
func (m *MemorySessionStore) Subscribe(_ context.Context, sessionID string, deliver func(msg []byte)) (func(), error) {
	s := &memorySub{deliver: deliver}
	m.relay.mu.Lock()
	if m.relay.subs == nil {
		m.relay.subs = make(map[string]map[*memorySub]struct{})
	}
	set := m.relay.subs[sessionID]
	if set == nil {
		set = make(map[*memorySub]struct{})
		m.relay.subs[sessionID] = set
	}
	set[s] = struct{}{}
	m.relay.mu.Unlock()
	return func() { m.unsubscribe(sessionID, s) }, nil
}

func (m *MemorySessionStore) unsubscribe(sessionID string, s *memorySub) {
	s.gone.Store(true)
	m.relay.mu.Lock()
	defer m.relay.mu.Unlock()
	set := m.relay.subs[sessionID]
	delete(set, s)
	if len(set) == 0 {
		delete(m.relay.subs, sessionID)
	}
}
