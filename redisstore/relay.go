package redisstore

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// errClosed is returned by Subscribe after Close.
var errClosed = errors.New("redisstore: store closed")

// pingEvery is how long the relay's connection may stay silent before the
// reader pings Redis, so that a connection that died quietly fails a
// write and go-redis replaces it.
const pingEvery = 30 * time.Second

// relay is the Store's SessionRelay: one Redis connection (a PubSub)
// subscribed to the channels of the sessions some local subscriber
// follows, and one goroutine reading it and handing each message to the
// channel's local subscribers.
type relay struct {
	mu      sync.Mutex
	ps      *redis.PubSub             // nil until the first Subscribe
	chans   map[string]*channelSubs   // by channel name
	waiting map[string][]*channelSubs // SUBSCRIBEs sent and not yet confirmed, in order
	closed  bool
	stop    context.CancelFunc // ends the reader's waits
	ctx     context.Context
	done    chan struct{} // closed when the reader returns
}

// channelSubs are the local subscribers of one channel.
type channelSubs struct {
	subs  map[*subscriber]struct{}
	ready chan struct{} // closed once Redis confirmed the SUBSCRIBE
}

type subscriber struct {
	deliver func(msg []byte)
	gone    atomic.Bool // unsubscribed: deliver no more
}

func (r *relay) init() {
	r.chans = make(map[string]*channelSubs)
	r.waiting = make(map[string][]*channelSubs)
	r.ctx, r.stop = context.WithCancel(context.Background())
	r.done = make(chan struct{})
}

// Publish implements httptransport.SessionRelay: PUBLISH on the session's
// channel.
func (s *Store) Publish(ctx context.Context, sessionID string, msg []byte) error {
	if err := s.client.Publish(ctx, s.channel(sessionID), msg).Err(); err != nil {
		return fmt.Errorf("redisstore: publishing to session %s: %w", sessionID, err)
	}
	return nil
}

// Subscribe implements httptransport.SessionRelay. The store's one relay
// connection SUBSCRIBEs to the session's channel when its first local
// subscriber arrives, and Subscribe returns once Redis confirmed it (or
// another local subscriber's); the channel is UNSUBSCRIBEd when its last
// local subscriber leaves. deliver is called from the store's reader
// goroutine, one message at a time, with a copy of the message that all
// of the channel's local subscribers share. A message published while the
// relay connection is down (go-redis connects again and subscribes again
// to every channel) is lost.
func (s *Store) Subscribe(ctx context.Context, sessionID string, deliver func(msg []byte)) (func(), error) {
	r := &s.relay
	ch := s.channel(sessionID)
	sub := &subscriber{deliver: deliver}
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil, errClosed
	}
	cs := r.chans[ch]
	if cs == nil {
		if err := r.startLocked(s.client); err != nil {
			r.mu.Unlock()
			return nil, err
		}
		if err := r.ps.Subscribe(ctx, ch); err != nil {
			// go-redis keeps the channel to subscribe to again when it
			// reconnects: make it forget.
			_ = r.ps.Unsubscribe(ctx, ch)
			r.mu.Unlock()
			return nil, fmt.Errorf("redisstore: subscribing to session %s: %w", sessionID, err)
		}
		cs = &channelSubs{subs: make(map[*subscriber]struct{}), ready: make(chan struct{})}
		r.chans[ch] = cs
		r.waiting[ch] = append(r.waiting[ch], cs)
	}
	cs.subs[sub] = struct{}{}
	r.mu.Unlock()

	var once sync.Once
	unsubscribe := func() { once.Do(func() { r.remove(ch, cs, sub) }) }
	select {
	case <-cs.ready:
		return unsubscribe, nil
	case <-ctx.Done():
		unsubscribe()
		return nil, fmt.Errorf("redisstore: subscribing to session %s: %w", sessionID, ctx.Err())
	case <-r.done:
		unsubscribe()
		return nil, errClosed
	}
}

// startLocked opens the relay connection and starts its reader, once.
func (r *relay) startLocked(client redis.UniversalClient) error {
	if r.ps != nil {
		return nil
	}
	if _, ok := client.(*redis.Ring); ok {
		return errors.New("redisstore: the relay does not work on a *redis.Ring")
	}
	r.ps = client.Subscribe(context.Background())
	go r.read(r.ps)
	return nil
}

// remove ends one local subscription, and the channel's SUBSCRIBE with
// its last.
func (r *relay) remove(ch string, cs *channelSubs, sub *subscriber) {
	sub.gone.Store(true)
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(cs.subs, sub)
	if len(cs.subs) > 0 || r.chans[ch] != cs {
		return
	}
	delete(r.chans, ch)
	// Its confirmation, if still to come, is let go: a confirmation that
	// finds no waiter is ignored, and one that comes for a later first
	// subscriber's SUBSCRIBE only lets that Subscribe return a round trip
	// early. Kept, the waiter of a confirmation lost with a connection
	// would stay for good.
	delete(r.waiting, ch)
	if !r.closed {
		// Under the lock, so that a SUBSCRIBE for a new first subscriber
		// goes out after it.
		ctx, cancel := storeCtx()
		_ = r.ps.Unsubscribe(ctx, ch)
		cancel()
	}
}

// read receives what the relay connection brings until Close.
func (r *relay) read(ps *redis.PubSub) {
	defer close(r.done)
	var backoff time.Duration
	for {
		m, err := ps.ReceiveTimeout(r.ctx, pingEvery)
		if err != nil {
			if r.ctx.Err() != nil {
				return
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				_ = ps.Ping(r.ctx)
				continue
			}
			// Redis is unreachable: go-redis connects again on the next
			// receive. Wait a little more each time.
			backoff = min(max(2*backoff, 50*time.Millisecond), 2*time.Second)
			t := time.NewTimer(backoff)
			select {
			case <-t.C:
			case <-r.ctx.Done():
				t.Stop()
				return
			}
			continue
		}
		backoff = 0
		switch m := m.(type) {
		case *redis.Message:
			r.dispatch(m)
		case *redis.Subscription:
			if m.Kind == "subscribe" {
				r.confirm(m.Channel)
			}
		}
	}
}

// confirm marks the oldest SUBSCRIBE awaiting its confirmation on ch done.
// A reconnection's SUBSCRIBEs confirm too: the channel is subscribed then.
func (r *relay) confirm(ch string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	w := r.waiting[ch]
	if len(w) == 0 {
		return
	}
	close(w[0].ready)
	if len(w) == 1 {
		delete(r.waiting, ch)
	} else {
		r.waiting[ch] = w[1:]
	}
}

// dispatch hands a message to its channel's local subscribers, outside
// the lock.
func (r *relay) dispatch(m *redis.Message) {
	r.mu.Lock()
	cs := r.chans[m.Channel]
	var subs []*subscriber
	if cs != nil {
		subs = make([]*subscriber, 0, len(cs.subs))
		for sub := range cs.subs {
			subs = append(subs, sub)
		}
	}
	r.mu.Unlock()
	if len(subs) == 0 {
		return
	}
	msg := []byte(m.Payload)
	for _, sub := range subs {
		if !sub.gone.Load() {
			sub.deliver(msg)
		}
	}
}

// close ends the relay connection and waits for the reader.
func (r *relay) close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	ps := r.ps
	r.mu.Unlock()
	r.stop()
	if ps == nil {
		close(r.done)
		return nil
	}
	err := ps.Close()
	<-r.done
	if err != nil {
		return fmt.Errorf("redisstore: closing the relay connection: %w", err)
	}
	return nil
}
