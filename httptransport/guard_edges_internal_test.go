package httptransport

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestLegacyPostHungStore: a 2024-11-05 POST's touch of the session's
// record has the store bound, as 2025-era requests' store calls do: a
// shared store that stopped answering does not hold the POST until the
// client gives up (it once did).
func TestLegacyPostHungStore(t *testing.T) {
	t.Parallel()
	store := NewFaultStore()
	s := NewTestServer(t, &Options{Sessions: store})
	s.Handler.cfg.storeTimeout = 100 * time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, endpoint := OpenLegacy(t, ctx, s.URL, nil)
	store.HangPut.Store(true)
	store.HangTouch.Store(true)
	defer store.HangPut.Store(false)
	defer store.HangTouch.Store(false)
	pctx, pcancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer pcancel()
	req, _ := http.NewRequestWithContext(pctx, "POST", s.HTTPServer.URL+endpoint, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Header.Set("Content-Type", "application/json")
	start := time.Now()
	resp, err := s.Client.Do(req)
	if err == nil {
		resp.Body.Close()
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("legacy POST waited %v on a hung store (bound 100 ms): %v", d.Round(time.Millisecond), err)
	}
}

// TestLegacyGetHungStore: the same for the GET that stores a new
// 2024-11-05 session's record.
func TestLegacyGetHungStore(t *testing.T) {
	t.Parallel()
	store := NewFaultStore()
	s := NewTestServer(t, &Options{Sessions: store})
	s.Handler.cfg.storeTimeout = 100 * time.Millisecond
	store.HangPut.Store(true)
	store.HangTouch.Store(true)
	defer store.HangPut.Store(false)
	defer store.HangTouch.Store(false)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", s.URL, nil)
	req.Header.Set("Accept", "text/event-stream")
	start := time.Now()
	resp, err := s.Client.Do(req)
	if err == nil {
		resp.Body.Close()
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("legacy GET waited %v on a hung store (bound 100 ms): %v", d.Round(time.Millisecond), err)
	}
}

// refusingSessionEngine refuses every session.
type refusingSessionEngine struct{ *TestEngine }

func (refusingSessionEngine) OpenSession(context.Context, *Session, Sender) error {
	return errors.New("no sessions today")
}

// TestLegacyRefusedGetLeavesNoRecord: a 2024-11-05 GET the engine refuses
// gets 500 and leaves no record in the store (it once left one, stored
// with no expiry, for ever).
func TestLegacyRefusedGetLeavesNoRecord(t *testing.T) {
	t.Parallel()
	store := NewMemorySessionStore()
	te := NewTestEngine()
	s := StartTestServer(t, te, &Options{Sessions: store}, nil, false)
	s.Handler.engine = refusingSessionEngine{te}
	for range 3 {
		resp, _ := s.Do("GET", http.Header{"Accept": {"text/event-stream"}}, "")
		if resp.StatusCode != 500 {
			t.Fatalf("GET: %d", resp.StatusCode)
		}
	}
	store.Sweep()
	store.mu.Lock()
	n := len(store.records)
	store.mu.Unlock()
	if n != 0 {
		t.Errorf("%d session records left (never expiring) by refused 2024-11-05 GETs", n)
	}
}

// TestAcceptQuotedQ: "q=0" inside a quoted parameter value is not the
// entry's weight (RFC 9110 section 5.6.6).
func TestAcceptQuotedQ(t *testing.T) {
	t.Parallel()
	r := httptest.NewRequest("GET", "/mcp", nil)
	r.Header.Set("Accept", `text/event-stream;ext="a;q=0;b", application/json`)
	if !acceptsSSE(r) {
		t.Errorf("Accept %q: text/event-stream counted as refused", r.Header.Get("Accept"))
	}
}
