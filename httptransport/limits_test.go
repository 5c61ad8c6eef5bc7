package httptransport_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/identity"
	"github.com/mcpmount/mcpmount/internal/testutil"
	"github.com/mcpmount/mcpmount/jsonrpc"
	"github.com/mcpmount/mcpmount/sse"
)

// asUser serves each request as the principal its X-Test-User header
// names, with the credential expiry X-Test-Expiry gives (a duration from
// now), as an auth middleware would.
func asUser(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info := &identity.Info{Issuer: "https://as.test", Subject: r.Header.Get("X-Test-User")}
		if d, err := time.ParseDuration(r.Header.Get("X-Test-Expiry")); err == nil {
			info.Expiry = time.Now().Add(d)
		}
		next.ServeHTTP(w, r.WithContext(identity.NewContext(r.Context(), info)))
	})
}

func withUser(h http.Header, user string) http.Header {
	h = h.Clone()
	h.Set("X-Test-User", user)
	return h
}

// overQuota checks a 429 refusal with its Retry-After and JSON-RPC error.
func overQuota(t *testing.T, what string, resp *http.Response, body string) {
	t.Helper()
	_, code, _ := httptransport.RPCError(t, body)
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "1" || code != jsonrpc.CodeServerError || !strings.Contains(body, "too many") {
		t.Errorf("%s: %d %v %s", what, resp.StatusCode, resp.Header, body)
	}
}

// TestMaxCallsPerPrincipal: a principal with MaxCallsPerPrincipal calls in
// flight gets 429 for more, in every era, and nothing of the refused POST
// runs; other principals are served; a place frees when a call ends.
func TestMaxCallsPerPrincipal(t *testing.T) {
	t.Parallel()
	s := httptransport.StartTestServer(t, httptransport.NewTestEngine(), &httptransport.Options{MaxCallsPerPrincipal: 2}, asUser, false)
	slow := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{"text":"s"},` + httptransport.Meta + `}}`
	h := httptransport.ModernHeaders("tools/call")
	h.Set("Mcp-Name", "slow")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	first, cancelFirst := context.WithCancel(ctx)
	for _, c := range []context.Context{first, ctx} {
		go func() {
			req, _ := http.NewRequestWithContext(c, "POST", s.URL, strings.NewReader(slow))
			req.Header = withUser(h, "alice")
			if resp, err := s.Client.Do(req); err == nil {
				resp.Body.Close()
			}
		}()
		<-s.Engine.Started
	}
	echo := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"e"},` + httptransport.Meta + `}}`
	eh := httptransport.ModernHeaders("tools/call")
	eh.Set("Mcp-Name", "echo")
	resp, body := s.Do("POST", withUser(eh, "alice"), echo)
	overQuota(t, "third 2026-07-28 call", resp, body)
	if resp, body := s.Do("POST", withUser(eh, "bob"), echo); resp.StatusCode != 200 {
		t.Errorf("another principal: %d %s", resp.StatusCode, body)
	}
	// The same quota covers 2025-era session calls (a batch takes one
	// place per request) and 2024-11-05 messages.
	sh := withUser(httptransport.SessionHeaders("", ""), "alice")
	resp, body = s.Do("POST", sh, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{}}}`)
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || sid == "" {
		t.Fatalf("initialize: %d %s", resp.StatusCode, body)
	}
	resp, body = s.Do("POST", withUser(httptransport.SessionHeaders(sid, httptransport.Version20250326), "alice"), `[{"jsonrpc":"2.0","id":3,"method":"tools/list"},{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}]`)
	overQuota(t, "2025-03-26 batch", resp, body)
	// A batch that could never pass the bound is a bad request, not a 429.
	resp, body = s.Do("POST", withUser(httptransport.SessionHeaders(sid, httptransport.Version20250326), "alice"), `[{"jsonrpc":"2.0","id":3,"method":"tools/list"},{"jsonrpc":"2.0","id":4,"method":"tools/list"},{"jsonrpc":"2.0","id":5,"method":"tools/list"}]`)
	if _, code, _ := httptransport.RPCError(t, body); resp.StatusCode != 400 || code != jsonrpc.CodeInvalidRequest {
		t.Errorf("a batch over the bound: %d %s", resp.StatusCode, body)
	}
	s.Engine.Mu.Lock()
	notified := len(s.Engine.Notified)
	s.Engine.Mu.Unlock()
	if notified != 0 {
		t.Errorf("a refused POST's notification reached the engine (%d)", notified)
	}
	lctx, lcancel := context.WithCancel(ctx)
	defer lcancel()
	_, endpoint := httptransport.OpenLegacy(t, lctx, s.URL, http.Header{"X-Test-User": {"alice"}})
	resp, body = s.DoURL("POST", s.HTTPServer.URL+endpoint, withUser(http.Header{"Content-Type": {"application/json"}}, "alice"), `{"jsonrpc":"2.0","id":4,"method":"tools/list"}`)
	overQuota(t, "2024-11-05 message", resp, body)
	cancelFirst()
	<-s.Engine.Cancelled
	httptransport.Eventually(t, "a place frees when a call ends", func() bool {
		resp, _ := s.Do("POST", withUser(eh, "alice"), echo)
		return resp.StatusCode == 200
	})
	cancel()
	<-s.Engine.Cancelled
}

// TestMaxStreamsPerPrincipal: held streams of every era count against one
// quota per principal: past it, 429; other principals are not affected;
// closing a stream frees its place.
func TestMaxStreamsPerPrincipal(t *testing.T) {
	t.Parallel()
	s := httptransport.StartTestServer(t, httptransport.NewTestEngine(), &httptransport.Options{MaxStreamsPerPrincipal: 1}, asUser, false)
	lh := httptransport.ModernHeaders("subscriptions/listen")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	aliceCtx, closeAlice := context.WithCancel(ctx)
	resp := s.Open(aliceCtx, "POST", withUser(lh, "alice"), httptransport.ListenBody)
	httptransport.NewSSEReader(t, resp.Body).NextMessage() // the acknowledgement
	resp, body := s.Do("POST", withUser(lh, "alice"), httptransport.ListenBody)
	overQuota(t, "second listen", resp, body)
	sid := s.Initialize(httptransport.Version20251125) // as the empty principal
	gh := httptransport.GetHeaders(sid, httptransport.Version20251125)
	sh := withUser(httptransport.SessionHeaders("", ""), "alice")
	resp, body = s.Do("POST", sh, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`)
	aliceSID := resp.Header.Get("Mcp-Session-Id")
	if aliceSID == "" {
		t.Fatalf("initialize: %d %s", resp.StatusCode, body)
	}
	agh := withUser(httptransport.SessionHeaders(aliceSID, httptransport.Version20251125), "alice")
	agh.Set("Accept", "text/event-stream")
	resp, body = s.Do("GET", agh, "")
	overQuota(t, "2025-era GET stream", resp, body)
	resp, body = s.Do("GET", withUser(http.Header{"Accept": {"text/event-stream"}}, "alice"), "")
	overQuota(t, "2024-11-05 event stream", resp, body)
	if resp := s.Open(ctx, "POST", withUser(lh, "bob"), httptransport.ListenBody); resp.StatusCode != 200 {
		t.Errorf("another principal's listen: %d", resp.StatusCode)
	}
	if resp := s.Open(ctx, "GET", gh, ""); resp.StatusCode != 200 {
		t.Errorf("the empty principal's GET stream: %d", resp.StatusCode)
	}
	closeAlice()
	httptransport.Eventually(t, "closing a stream frees its place", func() bool {
		c, done := context.WithCancel(ctx)
		defer done()
		return s.Open(c, "GET", agh, "").StatusCode == 200
	})
}

// TestMaxStreamDuration: held streams end when their time is up, whether
// taken over from net/http or not: a listen with its final result, a
// 2025-era GET stream and a 2024-11-05 event stream by ending.
func TestMaxStreamDuration(t *testing.T) {
	t.Parallel()
	const limit = 150 * time.Millisecond
	for _, disableHijack := range []bool{false, true} {
		e := httptransport.NewTestEngine()
		e.Hold = true // the listen is held with ErrHold, and so parked unless disableHijack
		s := httptransport.StartTestServer(t, e, &httptransport.Options{MaxStreamDuration: limit, DisableHijack: disableHijack}, nil, false)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()

		start := time.Now()
		r := httptransport.NewSSEReader(t, s.Open(ctx, "POST", httptransport.ModernHeaders("subscriptions/listen"), httptransport.ListenBody).Body)
		r.NextMessage() // the acknowledgement
		if final := r.NextMessage(); !final.IsResponse() || final.ID.Raw() != `"L"` || !strings.Contains(string(final.Result), `"resultType":"complete"`) {
			t.Errorf("hijack off %v: listen ended with %s %s", disableHijack, final.ID, final.Result)
		}
		if d := time.Since(start); d < limit*9/10 {
			t.Errorf("listen ended after %v, before its limit less a tenth", d)
		}

		sid := s.Initialize(httptransport.Version20251125)
		gh := httptransport.GetHeaders(sid, httptransport.Version20251125)
		start = time.Now()
		resp := s.Open(ctx, "GET", gh, "")
		// It ends with a server-side disconnect event (spec 2025-11-25 basic/transports#resumability-and-redelivery): a fresh
		// id to resume from and a retry, so clients see progress.
		gr := httptransport.NewSSEReader(t, resp.Body)
		var last sse.Event
		for {
			e, err := gr.R.Next()
			if err != nil {
				if !errors.Is(err, io.EOF) || ctx.Err() != nil {
					t.Errorf("hijack off %v: GET stream: %v %v", disableHijack, err, ctx.Err())
				}
				break
			}
			if !e.IsComment {
				last = e
			}
		}
		if !last.HasID || last.ID == "" || len(last.Data) != 0 || last.Retry != time.Second {
			t.Errorf("hijack off %v: the GET stream's last event %+v, want an id, no data, retry 1s", disableHijack, last)
		}
		if d := time.Since(start); d < limit*9/10 {
			t.Errorf("GET stream ended after %v, before its limit less a tenth", d)
		}
		// The client comes back and finds its session.
		httptransport.Eventually(t, "the GET stream reopens", func() bool {
			c, done := context.WithCancel(ctx)
			defer done()
			return s.Open(c, "GET", gh, "").StatusCode == 200
		})

		start = time.Now()
		lr, _ := httptransport.OpenLegacy(t, ctx, s.URL, nil)
		for {
			if _, err := lr.R.Next(); err != nil {
				break
			}
		}
		if d := time.Since(start); d < limit*9/10 || ctx.Err() != nil {
			t.Errorf("hijack off %v: 2024-11-05 stream ended after %v (%v)", disableHijack, d, ctx.Err())
		}
	}
}

// TestStreamsEndAtTokenExpiry: a held stream ends when the credential that
// opened it expires, unless StreamsOutliveTokens.
func TestStreamsEndAtTokenExpiry(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		mn := &testutil.MemNet{}
		h := withUser(httptransport.ModernHeaders("subscriptions/listen"), "alice")
		h.Set("X-Test-Expiry", "200ms")
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()

		for _, hold := range []bool{false, true} { // an engine that blocks, or holds
			e := httptransport.NewTestEngine()
			e.Hold = hold
			s := httptransport.StartBubbleServer(t, mn, e, nil, asUser, false)
			r := httptransport.NewSSEReader(t, s.Open(ctx, "POST", h, httptransport.ListenBody).Body)
			r.NextMessage()
			if final := r.NextMessage(); !final.IsResponse() || final.ID.Raw() != `"L"` {
				t.Errorf("hold %v: listen at token expiry: %s %s %s", hold, final.Method, final.ID, final.Result)
			}
		}

		// A credential already expired (accepted within the verifier's leeway)
		// gets a short grace, not a stream that ends at once, over and over.
		s := httptransport.StartBubbleServer(t, mn, httptransport.NewTestEngine(), nil, asUser, false)
		expired := h.Clone()
		expired.Set("X-Test-Expiry", "-10s")
		r := httptransport.NewSSEReader(t, s.Open(ctx, "POST", expired, httptransport.ListenBody).Body)
		r.NextMessage()
		time.Sleep(300 * time.Millisecond)
		s.Engine.Broadcast()
		if m := r.NextMessage(); m.Method != "notifications/tools/list_changed" {
			t.Errorf("a listen opened with an expired credential got %s %s %s", m.Method, m.ID, m.Result)
		}

		s = httptransport.StartBubbleServer(t, mn, httptransport.NewTestEngine(), &httptransport.Options{StreamsOutliveTokens: true}, asUser, false)
		r = httptransport.NewSSEReader(t, s.Open(ctx, "POST", h, httptransport.ListenBody).Body)
		r.NextMessage()
		time.Sleep(400 * time.Millisecond)
		s.Engine.Broadcast()
		if m := r.NextMessage(); m.Method != "notifications/tools/list_changed" {
			t.Errorf("with StreamsOutliveTokens the listen got %s %s %s", m.Method, m.ID, m.Result)
		}
	})
}

// TestQuotaFreeOnceAnswered: a call's place in its principal's quota is
// free once the client has its answer, so a client making one call at a
// time under MaxCallsPerPrincipal: 1 is never refused, in any era, JSON or
// SSE, whatever the timing.
func TestQuotaFreeOnceAnswered(t *testing.T) {
	t.Parallel()
	s := httptransport.StartTestServer(t, httptransport.NewTestEngine(), &httptransport.Options{MaxCallsPerPrincipal: 1}, asUser, false)
	echo := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"e"},` + httptransport.Meta + `}}`
	modernJSON := withUser(httptransport.ModernHeaders("tools/call"), "alice")
	modernJSON.Set("Mcp-Name", "echo")
	progress := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"progress","arguments":{"count":2},"_meta":{"progressToken":"t","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	modernProgress := modernJSON.Clone()
	modernProgress.Set("Mcp-Name", "progress")
	resp, body := s.Do("POST", withUser(httptransport.SessionHeaders("", ""), "alice"), `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}}`)
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || sid == "" {
		t.Fatalf("initialize: %d %s", resp.StatusCode, body)
	}
	session := withUser(httptransport.SessionHeaders(sid, httptransport.Version20250618), "alice")
	// A client reading an SSE answer has it before the response ends.
	for i := range 200 {
		resp := s.Open(context.Background(), "POST", modernProgress, progress)
		if resp.StatusCode != 200 {
			t.Fatalf("2026-07-28 SSE call %d, sent on the previous one's answer event: %d", i, resp.StatusCode)
		}
		for r := httptransport.NewSSEReader(t, resp.Body); !r.NextMessage().IsResponse(); {
		}
		resp.Body.Close()
	}
	for _, tc := range []struct {
		name   string
		header http.Header
		body   string
	}{
		{"2026-07-28 JSON", modernJSON, echo},
		{"2026-07-28 SSE", modernProgress, progress},
		{"2025-06-18 session", session, `{"jsonrpc":"2.0","id":"%d","method":"tools/list"}`},
	} {
		for i := range 200 {
			body := tc.body
			if strings.Contains(body, "%d") {
				body = fmt.Sprintf(body, i)
			}
			resp, got := s.Do("POST", tc.header, body)
			if resp.StatusCode != 200 || strings.Contains(got, `"error"`) {
				t.Fatalf("%s, call %d after the previous one's answer: %d %s", tc.name, i, resp.StatusCode, got)
			}
		}
	}
}

// TestStreamPlaceFreeOnceEnded: a held stream's place in its principal's
// quota is free once the client sees the stream end, so a client coming
// back at once after its time is up (MaxStreamDuration) is served, under
// MaxStreamsPerPrincipal: 1, whether the stream was taken over from
// net/http or not.
func TestStreamPlaceFreeOnceEnded(t *testing.T) {
	t.Parallel()
	for _, disableHijack := range []bool{false, true} {
		e := httptransport.NewTestEngine()
		e.Hold = true
		s := httptransport.StartTestServer(t, e, &httptransport.Options{MaxStreamsPerPrincipal: 1, MaxStreamDuration: 20 * time.Millisecond, DisableHijack: disableHijack}, asUser, false)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		drain := func(what string, i int, resp *http.Response) {
			t.Helper()
			defer resp.Body.Close()
			if resp.StatusCode != 200 {
				body, _ := io.ReadAll(resp.Body)
				t.Fatalf("hijack off %v: %s %d, opened as soon as the one before ended: %d %s", disableHijack, what, i, resp.StatusCode, body)
			}
			if _, err := io.Copy(io.Discard, resp.Body); err != nil || ctx.Err() != nil {
				t.Fatalf("hijack off %v: %s %d: %v %v", disableHijack, what, i, err, ctx.Err())
			}
		}
		for i := range 15 {
			drain("listen", i, s.Open(ctx, "POST", withUser(httptransport.ModernHeaders("subscriptions/listen"), "alice"), httptransport.ListenBody))
		}
		// A client that reads the listen's final result knows the listen is
		// over, before the response ends.
		for i := range 15 {
			resp := s.Open(ctx, "POST", withUser(httptransport.ModernHeaders("subscriptions/listen"), "alice"), httptransport.ListenBody)
			if resp.StatusCode != 200 {
				t.Fatalf("hijack off %v: listen %d, opened as soon as the one before answered: %d", disableHijack, i, resp.StatusCode)
			}
			for r := httptransport.NewSSEReader(t, resp.Body); !r.NextMessage().IsResponse(); {
			}
			resp.Body.Close()
		}
		resp, body := s.Do("POST", withUser(httptransport.SessionHeaders("", ""), "alice"), `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`)
		sid := resp.Header.Get("Mcp-Session-Id")
		if sid == "" {
			t.Fatalf("initialize: %d %s", resp.StatusCode, body)
		}
		gh := withUser(httptransport.SessionHeaders(sid, httptransport.Version20251125), "alice")
		gh.Set("Accept", "text/event-stream")
		for i := range 15 {
			drain("GET stream", i, s.Open(ctx, "GET", gh, ""))
		}
		for i := range 15 {
			drain("2024-11-05 stream", i, s.Open(ctx, "GET", withUser(http.Header{"Accept": {"text/event-stream"}}, "alice"), ""))
		}
	}
}

// TestMaxSessionsPerPrincipal: a principal with MaxSessionsPerPrincipal
// sessions open on the instance gets 429 for another initialize, and the
// engine opens nothing for it; other principals are served; ending a
// session (DELETE, or the idle timeout) frees its place, a DELETE's before
// its answer.
func TestMaxSessionsPerPrincipal(t *testing.T) {
	t.Parallel()
	s := httptransport.StartTestServer(t, httptransport.NewTestEngine(), &httptransport.Options{MaxSessionsPerPrincipal: 2, SessionIdleTimeout: 2 * time.Second}, asUser, false)
	initialize := func(user string) (*http.Response, string) {
		return s.Do("POST", withUser(httptransport.SessionHeaders("", ""), user), `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`)
	}
	opened := func() int {
		s.Engine.Mu.Lock()
		defer s.Engine.Mu.Unlock()
		return len(s.Engine.Outs)
	}
	var sids []string
	for range 2 {
		resp, body := initialize("alice")
		if resp.StatusCode != 200 || resp.Header.Get("Mcp-Session-Id") == "" {
			t.Fatalf("initialize: %d %s", resp.StatusCode, body)
		}
		sids = append(sids, resp.Header.Get("Mcp-Session-Id"))
	}
	before := opened()
	resp, body := initialize("alice")
	overQuota(t, "a third session", resp, body)
	if resp.Header.Get("Mcp-Session-Id") != "" || opened() != before {
		t.Errorf("a refused initialize opened a session (id %q, engine sessions %d, before %d)", resp.Header.Get("Mcp-Session-Id"), opened(), before)
	}
	if resp, body := initialize("bob"); resp.StatusCode != 200 {
		t.Errorf("another principal: %d %s", resp.StatusCode, body)
	}
	// The sessions that are open are served as before.
	if resp, body := s.Do("POST", withUser(httptransport.SessionHeaders(sids[0], httptransport.Version20251125), "alice"), httptransport.ListTools); resp.StatusCode != 200 {
		t.Errorf("an open session at the bound: %d %s", resp.StatusCode, body)
	}
	for i := range 20 {
		if resp, body := s.Do("DELETE", withUser(httptransport.SessionHeaders(sids[0], httptransport.Version20251125), "alice"), ""); resp.StatusCode != 200 {
			t.Fatalf("DELETE %d: %d %s", i, resp.StatusCode, body)
		}
		resp, body := initialize("alice")
		if resp.StatusCode != 200 {
			t.Fatalf("initialize %d right after a DELETE's answer: %d %s", i, resp.StatusCode, body)
		}
		sids[0] = resp.Header.Get("Mcp-Session-Id")
	}
	httptransport.Eventually(t, "idle sessions free their places", func() bool {
		resp, _ := initialize("alice")
		return resp.StatusCode == 200
	})
}

// refusingStore fails every Put while refuse is set.
type refusingStore struct {
	*httptransport.MemorySessionStore
	refuse atomic.Bool
}

func (s *refusingStore) Put(ctx context.Context, rec *httptransport.SessionRecord, ttl time.Duration) error {
	if s.refuse.Load() {
		return errors.New("store down")
	}
	return s.MemorySessionStore.Put(ctx, rec, ttl)
}

// TestSessionPlaceFreeOnFailedInitialize: an initialize that fails (here
// the store refuses the record) keeps no place in the principal's quota.
func TestSessionPlaceFreeOnFailedInitialize(t *testing.T) {
	t.Parallel()
	store := &refusingStore{MemorySessionStore: httptransport.NewMemorySessionStore()}
	s := httptransport.StartTestServer(t, httptransport.NewTestEngine(), &httptransport.Options{MaxSessionsPerPrincipal: 1, Sessions: store}, asUser, false)
	initialize := func() (*http.Response, string) {
		return s.Do("POST", withUser(httptransport.SessionHeaders("", ""), "alice"), `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`)
	}
	store.refuse.Store(true)
	for i := range 3 {
		if resp, body := initialize(); resp.StatusCode == 200 && !strings.Contains(body, `"error"`) {
			t.Fatalf("initialize %d with the store down: %d %s", i, resp.StatusCode, body)
		}
	}
	store.refuse.Store(false)
	if resp, body := initialize(); resp.StatusCode != 200 || resp.Header.Get("Mcp-Session-Id") == "" {
		t.Errorf("initialize once the store is back: %d %s", resp.StatusCode, body)
	}
}
