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

// defaultPingEvery is how long the relay's connection may stay silent
// before its reader pings Redis. A ping that brings nothing back within as
// long again means the connection is dead (a peer gone without a word, a
// NAT that forgot the flow), and the relay replaces it.
const defaultPingEvery = 30 * time.Second

// relay is the Store's SessionRelay: one Redis connection (a PubSub)
// subscribed to the channels of the sessions some local subscriber
// follows, and two goroutines. The owner is the only one to open and close
// the PubSub and to send SUBSCRIBE and UNSUBSCRIBE, one batch at a time,
// for the channels whose wanted state changed. The reader reads the
// PubSub, hands each message to the channel's local subscribers, counts
// SUBSCRIBE confirmations, and has the owner replace the PubSub when its
// connection fails or goes silent. Subscribe and unsubscribe only change
// state under mu and wake the owner: nothing waits on Redis with mu held,
// and only the relay's own goroutines take the PubSub's lock, which
// go-redis holds while it connects.
type relay struct {
	pingEvery time.Duration // set before the first Subscribe (tests shorten it)

	mu      sync.Mutex
	client  redis.UniversalClient
	chans   map[string]*channelState // by channel name
	dirty   map[string]struct{}      // channels for the owner to look at
	lastGen uint64                   // the last generation handed out
	epoch   uint64                   // the current PubSub's; a new one each time it is replaced
	started bool                     // the owner runs
	closed  bool
	closeEr error // the owner's closing of the PubSub, read after done

	wake chan struct{} // capacity 1: the owner has something to do
	ctx  context.Context
	stop context.CancelFunc // at Close: ends the owner, the reader and Subscribe's waits
	done chan struct{}      // closed when the owner returns, after the readers
}

// channelState is one channel's local subscribers and what the owner did
// about it on the current PubSub.
//
// Generations tell which SUBSCRIBE a Subscribe may return on. A
// subscriber that arrives while no SUBSCRIBE is in effect (none sent, or
// an UNSUBSCRIBE sent after it) takes a new generation, higher than any
// before; the owner's next SUBSCRIBE covers the latest one, and its
// confirmation releases the subscribers of the generations up to it. A
// subscriber that arrives while a SUBSCRIBE is in effect takes that
// SUBSCRIBE's generation, and returns at once if it is confirmed.
// Confirmations come in the order the SUBSCRIBEs went out, so the oldest
// pending generation is the one a confirmation is for: a late
// confirmation of an earlier SUBSCRIBE of the channel (whose subscriber
// left before it came) releases no later subscriber.
type channelState struct {
	subs      map[*subscriber]struct{}
	gen       uint64   // what the next SUBSCRIBE covers
	sent      uint64   // what the SUBSCRIBE in effect covers; 0 when none is
	confirmed uint64   // the highest generation confirmed on the current PubSub
	pending   []uint64 // the generations of the SUBSCRIBEs sent and not yet confirmed, oldest first
}

type subscriber struct {
	deliver func(msg []byte)
	gone    atomic.Bool // unsubscribed: deliver no more

	// Under relay.mu.
	gen      uint64
	released bool
	err      error         // why its SUBSCRIBE failed, set before ready is closed
	ready    chan struct{} // closed when released
}

func (r *relay) init() {
	r.pingEvery = defaultPingEvery
	r.chans = make(map[string]*channelState)
	r.dirty = make(map[string]struct{})
	r.wake = make(chan struct{}, 1)
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
// subscriber arrives, and UNSUBSCRIBEs when its last leaves. Subscribe
// returns once Redis confirmed a SUBSCRIBE of the channel sent after this
// subscriber arrived, or one already in effect then; it returns earlier
// with an error if ctx ends, if the store is closed, or if the SUBSCRIBE
// could not be sent (Redis unreachable). It never waits on Redis itself:
// a connection that hangs delays no Subscribe past its ctx, and
// unsubscribe never waits at all.
//
// deliver is called once Redis confirmed the subscription, from the
// store's reader goroutine, one message at a time, with a copy of the
// message that all of the channel's local subscribers share. When the
// relay connection fails, or stays silent for the ping interval (30 s)
// and then does not answer a ping within as long again, the store
// replaces it with a new connection subscribed to every channel that has
// local subscribers; a message published in between is lost.
func (s *Store) Subscribe(ctx context.Context, sessionID string, deliver func(msg []byte)) (func(), error) {
	r := &s.relay
	ch := s.channel(sessionID)
	sub := &subscriber{deliver: deliver, ready: make(chan struct{})}
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil, errClosed
	}
	if err := r.startLocked(s.client); err != nil {
		r.mu.Unlock()
		return nil, err
	}
	cs := r.chans[ch]
	if cs == nil {
		cs = &channelState{subs: make(map[*subscriber]struct{})}
		r.chans[ch] = cs
	}
	cs.subs[sub] = struct{}{}
	if cs.sent != 0 {
		sub.gen = cs.sent
	} else {
		r.lastGen++
		cs.gen, sub.gen = r.lastGen, r.lastGen
		r.dirtyLocked(ch)
	}
	if sub.gen <= cs.confirmed {
		r.releaseLocked(sub, nil)
	}
	r.mu.Unlock()

	var once sync.Once
	unsubscribe := func() { once.Do(func() { r.remove(ch, cs, sub) }) }
	select {
	case <-sub.ready:
		if sub.err != nil {
			unsubscribe()
			return nil, fmt.Errorf("redisstore: subscribing to session %s: %w", sessionID, sub.err)
		}
		return unsubscribe, nil
	case <-ctx.Done():
		select {
		case <-sub.ready: // confirmed just in time
			if sub.err == nil {
				return unsubscribe, nil
			}
		default:
		}
		unsubscribe()
		return nil, fmt.Errorf("redisstore: subscribing to session %s: %w", sessionID, ctx.Err())
	case <-r.ctx.Done():
		unsubscribe()
		return nil, errClosed
	}
}

// startLocked starts the owner, once.
func (r *relay) startLocked(client redis.UniversalClient) error {
	if r.started {
		return nil
	}
	if _, ok := client.(*redis.Ring); ok {
		return errors.New("redisstore: the relay does not work on a *redis.Ring")
	}
	r.client = client
	r.started = true
	go r.own()
	return nil
}

// remove ends one local subscription; with the channel's last, the owner
// UNSUBSCRIBEs.
func (r *relay) remove(ch string, cs *channelState, sub *subscriber) {
	sub.gone.Store(true)
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := cs.subs[sub]; !ok {
		return // its SUBSCRIBE failed: removed then
	}
	delete(cs.subs, sub)
	if len(cs.subs) == 0 && r.chans[ch] == cs {
		r.dirtyLocked(ch)
	}
}

// dirtyLocked has the owner look at ch.
func (r *relay) dirtyLocked(ch string) {
	r.dirty[ch] = struct{}{}
	r.wakeOwner()
}

func (r *relay) wakeOwner() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

func (r *relay) releaseLocked(sub *subscriber, err error) {
	if sub.released {
		return
	}
	sub.released = true
	sub.err = err
	close(sub.ready)
}

// own runs the PubSub until Close: it sends the SUBSCRIBEs and
// UNSUBSCRIBEs the channels' states call for, and replaces the PubSub
// when it broke.
func (r *relay) own() {
	var (
		ps      *redis.PubSub
		psEpoch uint64
		heard   *atomic.Bool   // ps's reader heard from Redis
		bg      sync.WaitGroup // readers, and PubSubs being closed
		backoff time.Duration
	)
	defer func() {
		if ps != nil {
			r.closeEr = ps.Close()
		}
		bg.Wait()
		close(r.done)
	}()
	closeInBackground := func(ps *redis.PubSub) {
		// A PubSub whose lock go-redis holds while it connects again
		// closes once that is over: meanwhile the new one works.
		bg.Go(func() { _ = ps.Close() })
	}
	for {
		select {
		case <-r.wake:
		case <-r.ctx.Done():
			return
		}
		epoch, subs, unsubs, ok := r.plan(ps != nil, psEpoch)
		for !ok {
			closeInBackground(ps)
			ps = nil
			if heard != nil && heard.Load() {
				backoff = 0
			} else {
				backoff = min(max(2*backoff, 50*time.Millisecond), 2*time.Second)
			}
			heard = nil
			if !sleep(r.ctx, backoff) {
				return
			}
			epoch, subs, unsubs, ok = r.plan(false, 0)
		}
		if len(subs) > 0 {
			fresh := ps == nil
			if fresh {
				ps, psEpoch = r.client.Subscribe(r.ctx), epoch // no I/O yet
			}
			ctx, cancel := r.opCtx()
			err := ps.Subscribe(ctx, subs...)
			cancel()
			if err != nil {
				r.fail(epoch, err)
				continue
			}
			if fresh {
				heard = new(atomic.Bool)
				ps, h := ps, heard
				bg.Go(func() { r.read(ps, epoch, h) })
			}
		}
		if len(unsubs) > 0 && ps != nil {
			ctx, cancel := r.opCtx()
			err := ps.Unsubscribe(ctx, unsubs...)
			cancel()
			if err != nil {
				r.broke(epoch)
			}
		}
	}
}

// plan decides, for each channel to look at, whether to SUBSCRIBE or
// UNSUBSCRIBE, and records it as done; not ok when the owner's PubSub (of
// psEpoch, if it has one) is to be replaced first.
func (r *relay) plan(havePS bool, psEpoch uint64) (epoch uint64, subs, unsubs []string, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if havePS && psEpoch != r.epoch {
		return 0, nil, nil, false
	}
	for ch := range r.dirty {
		delete(r.dirty, ch)
		cs := r.chans[ch]
		if cs == nil {
			continue
		}
		switch want := len(cs.subs) > 0; {
		case want && cs.sent == 0:
			cs.sent = cs.gen
			cs.pending = append(cs.pending, cs.gen)
			subs = append(subs, ch)
		case !want:
			if cs.sent != 0 {
				cs.sent = 0
				unsubs = append(unsubs, ch)
			}
			if len(cs.pending) == 0 {
				delete(r.chans, ch) // a new subscriber starts afresh
			}
		}
	}
	return r.epoch, subs, unsubs, true
}

// opCtx bounds one of the owner's commands, as the transport bounds its
// calls, and ends it at Close.
func (r *relay) opCtx() (context.Context, context.CancelFunc) {
	ctx, cancel := storeCtx()
	stop := context.AfterFunc(r.ctx, cancel)
	return ctx, func() { stop(); cancel() }
}

// fail fails the subscribers still waiting (the SUBSCRIBE that was to
// release them could not be sent) and has the PubSub replaced.
func (r *relay) fail(epoch uint64, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if epoch != r.epoch {
		return // already replaced: the next SUBSCRIBE covers them
	}
	for _, cs := range r.chans {
		for sub := range cs.subs {
			if !sub.released {
				r.releaseLocked(sub, err)
				delete(cs.subs, sub)
			}
		}
	}
	r.breakLocked()
}

// broke has the PubSub of epoch replaced, if it is still the current one.
func (r *relay) broke(epoch uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if epoch == r.epoch && !r.closed {
		r.breakLocked()
	}
}

// breakLocked gives up the current PubSub: what it confirms from now on
// is ignored, and the owner replaces it with one subscribed to every
// channel that has local subscribers.
func (r *relay) breakLocked() {
	r.epoch++
	for ch, cs := range r.chans {
		cs.sent, cs.confirmed, cs.pending = 0, 0, nil
		if len(cs.subs) == 0 {
			delete(r.chans, ch)
		} else {
			r.dirty[ch] = struct{}{}
		}
	}
	r.wakeOwner()
}

// read receives what ps brings until it fails, goes silent or is closed.
func (r *relay) read(ps *redis.PubSub, epoch uint64, heard *atomic.Bool) {
	pinged := false
	for {
		m, err := ps.ReceiveTimeout(r.ctx, r.pingEvery)
		if err != nil {
			if r.ctx.Err() != nil {
				return
			}
			var ne net.Error
			if !pinged && errors.As(err, &ne) && ne.Timeout() {
				// Silent for a while: a ping must bring something back
				// before the next timeout.
				if ps.Ping(r.ctx) == nil {
					pinged = true
					continue
				}
			}
			// Failed (go-redis may have connected again on its own: that
			// connection is dropped with the PubSub), closed, or silent
			// past a ping.
			r.broke(epoch)
			return
		}
		pinged = false
		heard.Store(true)
		switch m := m.(type) {
		case *redis.Message:
			r.dispatch(epoch, m)
		case *redis.Subscription:
			if m.Kind == "subscribe" {
				r.confirm(epoch, m.Channel)
			}
		}
	}
}

// confirm releases the subscribers that the oldest SUBSCRIBE of ch still
// pending covers.
func (r *relay) confirm(epoch uint64, ch string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	cs := r.chans[ch]
	if epoch != r.epoch || cs == nil || len(cs.pending) == 0 {
		return
	}
	g := cs.pending[0]
	cs.pending = cs.pending[1:]
	cs.confirmed = max(cs.confirmed, g)
	for sub := range cs.subs {
		if sub.gen <= g {
			r.releaseLocked(sub, nil)
		}
	}
	if len(cs.subs) == 0 && cs.sent == 0 && len(cs.pending) == 0 {
		delete(r.chans, ch)
	}
}

// dispatch hands a message to its channel's local subscribers whose
// Subscribe was confirmed (a message comes after the confirmation of the
// SUBSCRIBE it is delivered for), outside the lock.
func (r *relay) dispatch(epoch uint64, m *redis.Message) {
	r.mu.Lock()
	cs := r.chans[m.Channel]
	var subs []*subscriber
	if cs != nil && epoch == r.epoch {
		subs = make([]*subscriber, 0, len(cs.subs))
		for sub := range cs.subs {
			if sub.released {
				subs = append(subs, sub)
			}
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

// close ends the owner and the reader and closes the relay connection. A
// connection that hangs does not hold it up, but a connection attempt
// under way does, for as long as the client's dial and read timeouts let
// it run.
func (r *relay) close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	started := r.started
	r.mu.Unlock()
	r.stop()
	if !started {
		return nil
	}
	<-r.done
	if r.closeEr != nil {
		return fmt.Errorf("redisstore: closing the relay connection: %w", r.closeEr)
	}
	return nil
}

// sleep waits d, or until ctx ends (false).
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
