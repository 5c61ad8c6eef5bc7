package httptransport

import (
	"context"
	"encoding/json"

	"github.com/mcpmount/mcpmount/internal/logval"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// How a 2025-era session's own messages (those an engine sends through the
// session's Sender: list changes, resource updates, log messages and
// requests made outside any call) reach its GET stream when instances
// sharing the session through a SessionRelay serve it: they follow the
// stream.
//
// An instance that attaches the session's GET stream says so on the
// session's channel (streamNotice), and again when the stream ends. An
// instance that does not hold the stream, and has heard that another
// does, publishes the session's messages to that one (forwardMethod),
// which writes them on the stream as its own, with its event ids, so a
// client resuming elsewhere finds them in a shared EventStore. While no
// instance holds a stream, each keeps the messages as before, for the next
// GET here; a GET attached elsewhere has them forwarded when it says so.
// Every message goes one way: written here, or forwarded once.
//
// The relay delivers at most once: a message forwarded as the stream
// moves (its instance detached it a moment before) is kept there for the
// next GET instead, and one the relay loses is gone, as a notification to
// a client whose connection dropped is.

// The methods of the messages instances exchange about a session's stream.
// A client cannot have one published: only answers to server requests and
// notifications/cancelled are published for it (sessionrelay.go).
const (
	streamMethod  = "mcpmount/stream"          // params: streamNotice
	forwardMethod = "mcpmount/session-message" // params: forwarded
)

// streamNotice says that the instance whose copy has tag Tag attached the
// session's GET stream (Held) or let it go; with Ask, that the copy has
// just started serving the session here and asks the instance holding the
// stream, if any, to say so again.
type streamNotice struct {
	Tag  string `json:"tag"`
	Held bool   `json:"held"`
	Ask  bool   `json:"ask,omitempty"`
	// Gen counts the copy's attachments of the stream: a notice that it let
	// go of an older one, arriving after it attached a newer one (the relay
	// may deliver out of order), changes nothing.
	Gen uint64 `json:"gen,omitempty"`
	// Live says the copy's instance keeps a liveness record (Liveness):
	// should it stop renewing it, the session's messages stop going there
	// (livewatch.go). Instances of earlier releases keep none, and never
	// say so.
	Live bool `json:"live,omitempty"`
}

// forwarded is a session message for the copy with tag To.
type forwarded struct {
	To      string          `json:"to"`
	Message json.RawMessage `json:"message"`
}

// announceStream tells the session's other instances that this one now
// holds its GET stream (held) or no longer does.
func (ls *liveSession) announceStream(ctx context.Context, held bool) {
	ls.mu.Lock()
	if held {
		ls.streamGen++
	}
	gen := ls.streamGen
	ls.mu.Unlock()
	ls.notice(ctx, streamNotice{Tag: ls.tag, Held: held, Gen: gen, Live: ls.h.watch.store != nil})
}

// reannounce says again that this copy holds the stream (an Ask's answer).
func (ls *liveSession) reannounce(ctx context.Context) {
	ls.mu.Lock()
	gen := ls.streamGen
	ls.mu.Unlock()
	ls.notice(ctx, streamNotice{Tag: ls.tag, Held: true, Gen: gen, Live: ls.h.watch.store != nil})
}

// askStream asks, as the session starts being served here, which instance
// holds its GET stream.
func (ls *liveSession) askStream(ctx context.Context) {
	ls.notice(ctx, streamNotice{Tag: ls.tag, Ask: true})
}

func (ls *liveSession) notice(ctx context.Context, n streamNotice) {
	if ls.relay() == nil {
		return
	}
	params, _ := json.Marshal(n)
	ls.h.publish(ctx, ls, jsonrpc.NewNotification(streamMethod, params))
}

// forward publishes msg for the instance holding the session's GET stream,
// if another instance does; it reports whether it did.
func (ls *liveSession) forward(ctx context.Context, msg *jsonrpc.Message) bool {
	if ls.relay() == nil || ls.standalone.Attached() {
		return false
	}
	ls.mu.Lock()
	to := ls.streamAt
	ls.mu.Unlock()
	if to == "" {
		return false
	}
	data, err := msg.Encode()
	if err != nil {
		return false
	}
	return ls.publishForward(ctx, to, data) == nil
}

func (ls *liveSession) publishForward(ctx context.Context, to string, data []byte) error {
	params, err := json.Marshal(forwarded{To: to, Message: data})
	if err != nil {
		return err
	}
	env, err := jsonrpc.NewNotification(forwardMethod, params).Encode()
	if err != nil {
		return err
	}
	ls.h.withStore(ctx, func(ctx context.Context) { err = ls.relay().Publish(ctx, ls.id, env) })
	if err != nil {
		ls.h.warn("mcp: forwarding a session message to the instance holding its stream failed; kept here", "session", logval.String(ls.id), "error", logval.Err(err))
	}
	return err
}

// receivedStream handles another instance's streamNotice: messages go to
// the instance that holds the stream from now on, with those kept here
// while none did.
func (ls *liveSession) receivedStream(m *jsonrpc.Message) {
	var n streamNotice
	if json.Unmarshal(m.Params, &n) != nil || n.Tag == "" || n.Tag == ls.tag {
		return
	}
	// Off the relay's delivering goroutine, which must not wait on stores
	// or clients, and in order with the session's other deliveries.
	ls.later(func() {
		switch {
		case n.Ask:
			if ls.standalone.Attached() {
				ls.reannounce(ls.ctx)
			}
		case n.Held:
			ls.moveStream(n)
		default:
			ls.mu.Lock()
			if ls.streamAt == n.Tag && n.Gen >= ls.streamAtGen {
				ls.streamAt, ls.streamAtLive = "", false
			}
			ls.mu.Unlock()
		}
	})
}

// moveStream takes the news that another copy holds the session's stream:
// what waits here goes there first, then the session's messages do, so
// that none overtakes an older one.
func (ls *liveSession) moveStream(n streamNotice) {
	ls.mu.Lock()
	current := ls.streamAt == n.Tag && n.Gen < ls.streamAtGen
	ls.mu.Unlock()
	if current {
		return // an older attachment's news
	}
	ctx, cancel := ls.h.eventsCtx(ls.ctx)
	defer cancel()
	if !ls.forwardKept(ctx, n.Tag) {
		return // kept here until the next GET, here or elsewhere
	}
	ls.mu.Lock()
	ls.streamAt, ls.streamAtGen, ls.streamAtLive = n.Tag, n.Gen, n.Live
	ls.mu.Unlock()
	ls.forwardKept(ctx, n.Tag) // any kept while the first went
}

// forwardKept forwards the messages kept here for a GET to the copy tagged
// to; on a failure it keeps the rest here, and reports false.
func (ls *liveSession) forwardKept(ctx context.Context, to string) bool {
	kept, first := ls.standalone.TakeUndelivered(ctx)
	for i, data := range kept {
		if ls.publishForward(ctx, to, data.Data) != nil {
			ls.standalone.KeepFrom(first, kept[i].Index)
			return false
		}
	}
	return true
}

// receivedForward writes a message another instance forwarded to the
// session's stream here, or keeps it for the next GET if the stream went
// meanwhile.
func (ls *liveSession) receivedForward(m *jsonrpc.Message) {
	var f forwarded
	if json.Unmarshal(m.Params, &f) != nil || f.To != ls.tag {
		return
	}
	msg, err := jsonrpc.Decode(f.Message)
	if err != nil {
		return
	}
	// Off the relay's delivering goroutine: the write waits for the client.
	ls.later(func() { _ = ls.standalone.Send(msg) })
}

// maxQueued bounds what waits in a session's queue of relayed deliveries
// (later): a client flooding another instance with 2024-11-05 POSTs for
// its session cannot grow it without end.
const maxQueued = 1024

// later runs f after the functions queued before it, on a goroutine that
// runs while the session's queue has any: the relay's deliveries for the
// session keep their order, and none waits on a client or a store.
func (ls *liveSession) later(f func()) {
	ls.queueMu.Lock()
	if len(ls.queue) >= maxQueued {
		ls.queueMu.Unlock()
		ls.h.warn("mcp: dropping a message relayed for a session: its queue is full", "session", logval.String(ls.id))
		return
	}
	ls.queue = append(ls.queue, f)
	start := !ls.draining
	ls.draining = true
	ls.queueMu.Unlock()
	if !start {
		return
	}
	go func() {
		for {
			ls.queueMu.Lock()
			if len(ls.queue) == 0 {
				ls.draining = false
				ls.queue = nil
				ls.queueMu.Unlock()
				return
			}
			f := ls.queue[0]
			ls.queue[0] = nil
			ls.queue = ls.queue[1:]
			ls.queueMu.Unlock()
			f()
		}
	}()
}
