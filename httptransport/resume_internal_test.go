package httptransport

import (
	"context"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpmount/mcpmount/httptransport/internal/output"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// TestResume: a client whose POST stream drops resumes it with GET and
// Last-Event-ID and receives exactly the rest of that stream, the response
// included; an id naming another session's stream replays nothing.
func TestResume(t *testing.T) {
	t.Parallel()
	s := NewTestServer(t, nil)
	gate := make(chan struct{})
	s.Engine.Gate = gate
	sid := s.Initialize(Version20251125)
	ctx, cancel := context.WithCancel(context.Background())
	resp := s.Open(ctx, "POST", SessionHeaders(sid, Version20251125), `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"progress","arguments":{"count":3},"_meta":{"progressToken":"t"}}}`)
	r := NewSSEReader(t, resp.Body)
	first := r.Next() // priming
	second := r.Next()
	if !strings.Contains(string(second.Data), `"progress":1`) {
		t.Fatalf("second event %+v", second)
	}
	cancel() // the connection drops after progress 1
	// Wait until the server noticed, then let the call go on.
	deadline := time.Now().Add(5 * time.Second)
	for {
		s.Handler.mu.Lock()
		ls := s.Handler.live[sid]
		s.Handler.mu.Unlock()
		ls.mu.Lock()
		st := ls.streams[strings.Split(first.ID, "_")[0]]
		ls.mu.Unlock()
		attached := st.Attached()
		if !attached {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("server never noticed the drop")
		}
		time.Sleep(2 * time.Millisecond)
	}
	gate <- struct{}{}
	gate <- struct{}{}
	// A foreign session cannot resume it.
	other := s.Initialize(Version20251125)
	h := GetHeaders(other, Version20251125)
	h.Set("Last-Event-ID", second.ID)
	if resp, body := s.Do("GET", h, ""); resp.StatusCode != 400 || strings.Contains(body, "progress") {
		t.Errorf("foreign resume: %d %s", resp.StatusCode, body)
	}
	h = SessionHeaders(sid, Version20251125)
	h.Set("Accept", "text/event-stream")
	h.Set("Last-Event-ID", second.ID)
	resp2, body := s.Do("GET", h, "")
	if resp2.StatusCode != 200 {
		t.Fatalf("resume: %d %s", resp2.StatusCode, body)
	}
	msgs := Messages(t, Events(t, body))
	if len(msgs) != 3 || !strings.Contains(string(msgs[0].Params), `"progress":2`) || !strings.Contains(string(msgs[1].Params), `"progress":3`) || msgs[2].ID.Raw() != "9" {
		t.Fatalf("replayed %d messages: %s", len(msgs), body)
	}
	h.Set("Last-Event-ID", "nosuch_1")
	if resp, _ := s.Do("GET", h, ""); resp.StatusCode != 400 {
		t.Errorf("unknown stream: %d", resp.StatusCode)
	}
}

// TestMemoryEventStoreBound: the store keeps at most its byte budget per
// session (data and bookkeeping), dropping the oldest events, and says so
// when asked for them.
func TestMemoryEventStoreBound(t *testing.T) {
	t.Parallel()
	m := NewMemoryEventStore(&MemoryEventStoreOptions{MaxBytesPerSession: 3*(30+eventOverhead) + 10})
	ctx := context.Background()
	for i := 1; i <= 10; i++ {
		if err := m.Append(ctx, "s", "1", i, []byte(strings.Repeat("x", 30))); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := m.After(ctx, "s", "1", 0); err != ErrEventsGone {
		t.Errorf("After(0) = %v, want ErrEventsGone", err)
	}
	got, err := m.After(ctx, "s", "1", 8)
	if err != nil || len(got) != 2 {
		t.Errorf("After(8) = %d events, %v", len(got), err)
	}
	if err := m.Append(ctx, "s", "1", 12, nil); err == nil {
		t.Error("out-of-order append accepted")
	}
	_ = m.SessionClosed(ctx, "s")
	if _, err := m.After(ctx, "s", "1", 8); err != ErrEventsGone {
		t.Errorf("after SessionClosed: %v", err)
	}
}

// TestMemoryEventStoreStreamsBounded: a long session of many short
// streams (a call answered over SSE each) keeps a bounded number of stream
// entries, not one per stream it ever had; a stream whose events were all
// dropped starts afresh with its next event.
func TestMemoryEventStoreStreamsBounded(t *testing.T) {
	t.Parallel()
	const budget = 4096
	m := NewMemoryEventStore(&MemoryEventStoreOptions{MaxBytesPerSession: budget})
	ctx := context.Background()
	for i := range 3000 {
		stream := strconv.Itoa(i)
		if m.Append(ctx, "s", stream, 1, nil) != nil || m.Append(ctx, "s", stream, 2, []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`)) != nil {
			t.Fatal("append refused")
		}
	}
	m.mu.Lock()
	n := len(m.sessions["s"].streams)
	m.mu.Unlock()
	if n > budget/eventOverhead {
		t.Errorf("%d stream entries kept after 3000 short streams, budget %d bytes", n, budget)
	}
	if err := m.Append(ctx, "s", "0", 3, []byte(`{}`)); err != nil {
		t.Errorf("a dropped stream's next event: %v", err)
	}
	if got, err := m.After(ctx, "s", "0", 2); err != nil || len(got) != 1 {
		t.Errorf("After the last event seen, once the stream went on: %d events, %v", len(got), err)
	}
}

// TestResumeWithNothingMissed: a GET resuming from a stream's last event
// attaches, even when the store no longer holds any of the stream's events
// (other streams' traffic pushed them out): there is nothing to replay.
func TestResumeWithNothingMissed(t *testing.T) {
	t.Parallel()
	store := NewMemoryEventStore(nil)
	st, detached, _ := attachedGET(t, store, "c0", true)
	if err := st.Send(jsonrpc.NewNotification("notifications/tools/list_changed", nil)); err != nil {
		t.Fatal(err)
	}
	st.DetachAttached(detached)
	_ = store.SessionClosed(context.Background(), "S") // every event of it gone
	last := st.LastIndex()
	if _, err := st.Attach(httptest.NewRecorder(), last, true, false, nil); err != nil {
		t.Errorf("resume from the last event sent: %v", err)
	}
}

// StallingEvents is an EventStore whose Append of a message blocks until
// its context ends, as a remote store that stopped answering would.
type StallingEvents struct {
	*MemoryEventStore
	Entered chan struct{}
}

func (s *StallingEvents) Append(ctx context.Context, session, stream string, index int, data []byte) error {
	if data == nil {
		return s.MemoryEventStore.Append(ctx, session, stream, index, data)
	}
	select {
	case s.Entered <- struct{}{}:
	default:
	}
	<-ctx.Done()
	return ctx.Err()
}

// TestStalledEventStoreBounded: an event store that stops answering holds
// a stream (and whoever sends on it: here the engine's broadcast) for the
// store's time bound at most, not for as long as the session lives.
func TestStalledEventStoreBounded(t *testing.T) {
	t.Parallel()
	ev := &StallingEvents{MemoryEventStore: NewMemoryEventStore(nil), Entered: make(chan struct{}, 1)}
	s := NewTestServer(t, &Options{Events: ev})
	s.Handler.cfg.storeTimeout = 100 * time.Millisecond
	s.Initialize(Version20251125)
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		s.Engine.Broadcast()
	}()
	<-ev.Entered
	select {
	case <-sent:
	case <-time.After(3 * time.Second):
		t.Fatal("a send is still held by the stalled store after 3 s (bound 100 ms)")
	}
}

// TestGETGetsWhatWaited: what a 2025-era session sent while no GET stream
// was open (a list change, or a request an initialized handler sends
// before the client opens its GET) reaches the first GET opened afresh,
// and only once: a later GET does not get it again.
func TestGETGetsWhatWaited(t *testing.T) {
	t.Parallel()
	s := NewTestServer(t, nil)
	sid := s.Initialize(Version20251125)
	s.Engine.Broadcast() // no GET yet
	h := GetHeaders(sid, Version20251125)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	first, drop := context.WithCancel(ctx)
	r := NewSSEReader(t, s.Open(first, "GET", h, "").Body)
	waited := r.Next()
	if !strings.Contains(string(waited.Data), "notifications/tools/list_changed") || waited.ID == "" {
		t.Fatalf("the first GET's first event: %+v", waited)
	}
	drop()
	Eventually(t, "the first GET is let go", func() bool {
		s.Handler.mu.Lock()
		ls := s.Handler.live[sid]
		s.Handler.mu.Unlock()
		return !ls.standalone.Attached()
	})
	r = NewSSEReader(t, s.Open(ctx, "GET", h, "").Body)
	s.Engine.Broadcast()
	if e := r.Next(); e.ID == waited.ID || !strings.Contains(string(e.Data), "notifications/tools/list_changed") {
		t.Errorf("the second GET's first event %+v, want the new list change (the waiting one was %s)", e, waited.ID)
	}
}

// TestStandaloneIDs: the ids of standalone streams are told from call
// streams', in this release's form and in the earlier one's (instance tag
// only), so that a GET resuming across a rolling upgrade finds its events
// and never gets a call's (the earlier release's call stream 10000 is as
// long as a copy's standalone id).
func TestStandaloneIDs(t *testing.T) {
	t.Parallel()
	h := New(NewTestEngine(), nil)
	ls := h.newLiveSession(&Session{ID: "S", Version: Version20251125}, "", "", nil)
	defer ls.stop()
	ls.newCallStream(h.newStream(nil, acceptance{sse: true}, output.Role{}))
	for id, want := range map[string]bool{
		ls.standalone.ID():     true,
		ls.tag + "1":           false,
		ls.tag + "10":          false,
		"QWERTY0":              true, // the previous release's standalone id
		"QWERTY1":              false,
		"QWERTY10":             false,
		"QWERTYABCD0":          true, // another instance's copy
		"QWERTY2A3B0":          true,
		"QWERTYABCD20":         false,
		"QWERTY10000":          false, // the previous release's call stream 10000
		"QWERTY12340":          false,
		strings.Repeat("A", 3): false,
	} {
		if got := h.isStandaloneID(id); got != want {
			t.Errorf("isStandaloneID(%q) = %v, want %v", id, got, want)
		}
	}
	for range 10000 { // base32 tags were all digits one time in 800
		if tag := newCopyTag(); allDigits(tag) {
			t.Fatalf("copy tag %q is all digits", tag)
		}
	}
}
