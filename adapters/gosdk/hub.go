package gosdk

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/internal/fanout"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// Held 2026-07-28 listens (this file): once the SDK has acknowledged a
// subscriptions/listen, its SDK session is closed and the listen joins the
// engine's hub. The engine's one watcher session (describe.go) receives
// every list change the server announces, and is subscribed to each
// resource URI that at least one listen asked for, once per URI; the hub
// hands each notification to the listens whose filter holds it, stamped
// with each listen's subscription id
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions),
// and a pool of a few workers writes them (fanout.Pool). A listen costs the
// engine a small struct and its entries in the hub's sets: no SDK session,
// no goroutine.
//
// What a listen has not been sent yet is coalesced: a list change is one
// bit, and a resource's update is kept once per URI (the latest). A
// client that stops reading therefore holds at most one pending message
// per notification type and URI it subscribed to, whatever the number of
// changes meanwhile, and no change is lost: it learns of each change of
// what it watches, once, when it reads again. A write to a client that
// stopped reading blocks only the worker making it, which the pool
// replaces; the transport ends the stream when such a write has waited
// Options.WriteTimeout (30 s by default).

// Topics of a listen's filter, as bits.
const (
	topicTools uint8 = 1 << iota
	topicPrompts
	topicResources
	numTopics = 3
)

// topicMethods are the list-change notifications of each topic, by bit
// index.
var topicMethods = [numTopics]string{
	"notifications/tools/list_changed",
	"notifications/prompts/list_changed",
	"notifications/resources/list_changed",
}

const methodResourceUpdated = "notifications/resources/updated"

// listenStuck is how long a worker's write to a listen must have taken for
// the pool to count the worker as stuck on a client that stopped reading
// and start another in its place: a write to a client that reads takes
// microseconds.
const listenStuck = 5 * time.Millisecond

// listenFilter is what the SDK granted a listen: the acknowledgement's
// params.notifications.
type listenFilter struct {
	topics uint8
	uris   []string
}

// parseAck reads the filter an acknowledgement grants.
func parseAck(params json.RawMessage) (listenFilter, error) {
	var p struct {
		Notifications struct {
			ToolsListChanged      bool     `json:"toolsListChanged"`
			PromptsListChanged    bool     `json:"promptsListChanged"`
			ResourcesListChanged  bool     `json:"resourcesListChanged"`
			ResourceSubscriptions []string `json:"resourceSubscriptions"`
		} `json:"notifications"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return listenFilter{}, fmt.Errorf("gosdk: reading the listen's acknowledgement: %w", err)
	}
	n := p.Notifications
	var f listenFilter
	if n.ToolsListChanged {
		f.topics |= topicTools
	}
	if n.PromptsListChanged {
		f.topics |= topicPrompts
	}
	if n.ResourcesListChanged {
		f.topics |= topicResources
	}
	seen := make(map[string]bool, len(n.ResourceSubscriptions))
	for _, u := range n.ResourceSubscriptions {
		if !seen[u] {
			seen[u] = true
			f.uris = append(f.uris, u)
		}
	}
	return f, nil
}

// held reports whether the filter grants anything, in which case the SDK
// holds the listen open; with nothing granted it answers at once.
func (f listenFilter) held() bool { return f.topics != 0 || len(f.uris) > 0 }

// listener is one held listen.
type listener struct {
	call   *httptransport.Call
	ctx    context.Context
	filter listenFilter
	stop   func() bool // unregisters the leave at the ctx's end

	mu      sync.Mutex
	ready   bool                    // the acknowledgement is out: messages may follow
	queued  bool                    // on the pool's queue, or being written
	pending uint8                   // list changes not written yet, by topic
	updates map[string]*subTemplate // resource updates not written yet, the latest per URI
}

// hub is the engine's registry of held listens, by topic and by resource
// URI.
type hub struct {
	pool      *fanout.Pool[*listener]
	subscribe func(ctx context.Context, method, uri string) error // on the watcher

	mu     sync.RWMutex
	topics [numTopics]map[*listener]struct{}
	uris   map[string]map[*listener]struct{}

	subMu  sync.Mutex     // orders the watcher's subscribe and unsubscribe calls
	counts map[string]int // listens per URI the watcher is subscribed to (under subMu)
}

func newHub(subscribe func(ctx context.Context, method, uri string) error) *hub {
	pool := fanout.New[*listener](max(8, 4*runtime.GOMAXPROCS(0)), listenStuck)
	h := &hub{pool: pool, subscribe: subscribe, uris: make(map[string]map[*listener]struct{}), counts: make(map[string]int)}
	for i := range h.topics {
		h.topics[i] = make(map[*listener]struct{})
	}
	return h
}

// join registers a listen the SDK is about to acknowledge, subscribing
// the watcher to the URIs no other listen holds yet. The listen receives
// nothing until markReady (after its acknowledgement is written); it
// leaves the hub when ctx ends.
func (h *hub) join(ctx context.Context, call *httptransport.Call, f listenFilter) (*listener, error) {
	l := &listener{call: call, ctx: ctx, filter: f}
	if len(f.uris) > 0 {
		if err := h.hold(ctx, f.uris); err != nil {
			return nil, err
		}
	}
	h.mu.Lock()
	for i := range numTopics {
		if f.topics&(1<<i) != 0 {
			h.topics[i][l] = struct{}{}
		}
	}
	for _, u := range f.uris {
		set := h.uris[u]
		if set == nil {
			set = make(map[*listener]struct{})
			h.uris[u] = set
		}
		set[l] = struct{}{}
	}
	h.mu.Unlock()
	l.stop = context.AfterFunc(ctx, func() { h.leave(l) })
	return l, nil
}

// hold counts a listen for each of uris, subscribing the watcher to those
// it did not hold; on failure nothing is counted.
func (h *hub) hold(ctx context.Context, uris []string) error {
	h.subMu.Lock()
	defer h.subMu.Unlock()
	for i, u := range uris {
		if h.counts[u] == 0 {
			if err := h.subscribe(ctx, "resources/subscribe", u); err != nil {
				h.releaseLocked(uris[:i])
				return fmt.Errorf("gosdk: subscribing to %q for a listen: %w", u, err)
			}
		}
		h.counts[u]++
	}
	return nil
}

// releaseLocked uncounts a listen for each of uris, unsubscribing the
// watcher from those no listen holds any more. The caller holds subMu.
func (h *hub) releaseLocked(uris []string) {
	for _, u := range uris {
		h.counts[u]--
		if h.counts[u] > 0 {
			continue
		}
		delete(h.counts, u)
		ctx, cancel := context.WithTimeout(context.Background(), describeTimeout)
		_ = h.subscribe(ctx, "resources/unsubscribe", u) // a server without the handler keeps it
		cancel()
	}
}

// leave removes a listen whose stream ended.
func (h *hub) leave(l *listener) {
	h.mu.Lock()
	for i := range numTopics {
		delete(h.topics[i], l)
	}
	for _, u := range l.filter.uris {
		if set := h.uris[u]; set != nil {
			delete(set, l)
			if len(set) == 0 {
				delete(h.uris, u)
			}
		}
	}
	h.mu.Unlock()
	l.mu.Lock()
	l.pending, l.updates = 0, nil
	l.mu.Unlock()
	if len(l.filter.uris) > 0 {
		h.subMu.Lock()
		h.releaseLocked(l.filter.uris)
		h.subMu.Unlock()
	}
}

// markReady lets messages follow the acknowledgement, writing those that
// came meanwhile.
func (h *hub) markReady(l *listener) {
	l.mu.Lock()
	l.ready = true
	start := l.schedulableLocked()
	l.mu.Unlock()
	if start {
		h.pool.Push(l)
	}
}

// schedulableLocked reports whether l has messages to write and no worker
// has it yet, and if so marks it queued.
func (l *listener) schedulableLocked() bool {
	if !l.ready || l.queued || (l.pending == 0 && len(l.updates) == 0) {
		return false
	}
	l.queued = true
	return true
}

// notify hands a notification the watcher received to the listens that
// asked for it.
func (h *hub) notify(msg *jsonrpc.Message) {
	if msg.Method == methodResourceUpdated {
		h.updated(msg.Params)
		return
	}
	for i, m := range topicMethods {
		if m == msg.Method {
			h.changed(i)
			return
		}
	}
}

// changed marks a list change on every listen of topic i.
func (h *hub) changed(i int) {
	bit := uint8(1) << i
	h.mu.RLock()
	batch := make([]*listener, 0, len(h.topics[i]))
	for l := range h.topics[i] {
		l.mu.Lock()
		l.pending |= bit
		if l.schedulableLocked() {
			batch = append(batch, l)
		}
		l.mu.Unlock()
	}
	h.mu.RUnlock()
	h.pool.Push(batch...)
}

// updated marks a resource's update on every listen of its URI.
func (h *hub) updated(params json.RawMessage) {
	var p struct {
		URI string `json:"uri"`
	}
	if json.Unmarshal(params, &p) != nil || p.URI == "" {
		return
	}
	t, err := newSubTemplate(params)
	if err != nil {
		return
	}
	h.mu.RLock()
	set := h.uris[p.URI]
	batch := make([]*listener, 0, len(set))
	for l := range set {
		l.mu.Lock()
		if l.updates == nil {
			l.updates = make(map[string]*subTemplate, 1)
		}
		l.updates[p.URI] = t
		if l.schedulableLocked() {
			batch = append(batch, l)
		}
		l.mu.Unlock()
	}
	h.mu.RUnlock()
	h.pool.Push(batch...)
}

// Flush writes what l has pending and reports whether more came
// meanwhile (l stays queued then, and the pool queues it again); it
// implements fanout.Queue.
func (l *listener) Flush() (more bool) {
	l.mu.Lock()
	bits, ups := l.pending, l.updates
	l.pending, l.updates = 0, nil
	l.mu.Unlock()
	id := l.call.Request.ID.Raw()
	failed := false
	send := func(method string, params json.RawMessage) {
		if failed {
			return
		}
		if l.call.Send(l.ctx, jsonrpc.NewNotification(method, params)) != nil {
			failed = true // the stream ended: the listen leaves with its ctx
		}
	}
	for i, m := range topicMethods {
		if bits&(1<<i) != 0 {
			send(m, listChangedTemplate.with(id))
		}
	}
	for _, t := range ups {
		send(methodResourceUpdated, t.with(id))
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if failed || l.ctx.Err() != nil {
		l.pending, l.updates = 0, nil
	}
	more = l.pending != 0 || len(l.updates) > 0
	if !more {
		l.queued = false
	}
	return more
}
