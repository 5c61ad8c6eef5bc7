package httptransport_test

import (
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// TestShutdownAnswersAbandonedCalls: calls still running when Shutdown's
// deadline passes get a -32000 error saying the server is shutting down,
// on SSE as in JSON, in every era (the 2024-11-05 call's on its event
// stream), so their clients know to send them again; before, an SSE
// client got an empty stream, and a 2024-11-05 one a stream that ended.
func TestShutdownAnswersAbandonedCalls(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, &httptransport.Options{HeaderFlushDelay: 10 * time.Millisecond})
	sid := s.Initialize(httptransport.Version20251125)
	sid0618 := s.Initialize(httptransport.Version20250618)
	sid0326 := s.Initialize(httptransport.Version20250326)
	// A 2024-11-05 call, whose answer goes on its session's event stream.
	legacyCtx, stopLegacy := context.WithCancel(context.Background())
	defer stopLegacy()
	legacy, endpoint := httptransport.OpenLegacy(t, legacyCtx, s.URL, nil)
	s.DoURL("POST", s.HTTPServer.URL+endpoint, http.Header{"Content-Type": {"application/json"}}, `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"slow","arguments":{"text":"9"}}}`)
	<-s.Engine.Started
	slow := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"slow","arguments":{"text":"` + id + `"}`
	}
	jsonOnly := httptransport.SessionHeaders(sid, httptransport.Version20251125)
	jsonOnly.Set("Accept", "application/json")
	modern := httptransport.ModernHeaders("tools/call")
	modern.Set("Mcp-Name", "slow")
	cases := []struct {
		name   string
		header http.Header
		body   string
		sse    bool
	}{
		{"2025 SSE", httptransport.SessionHeaders(sid, httptransport.Version20251125), slow("1") + `}}`, true},
		{"2025 JSON", jsonOnly, slow("2") + `}}`, false},
		{"2026-07-28 SSE", modern, slow("3") + `,` + httptransport.Meta + `}}`, true},
		{"2025-06-18 SSE", httptransport.SessionHeaders(sid0618, httptransport.Version20250618), slow("4") + `}}`, true},
		{"2025-03-26 SSE", httptransport.SessionHeaders(sid0326, httptransport.Version20250326), slow("5") + `}}`, true},
	}
	bodies := make([]chan string, len(cases))
	for i, c := range cases {
		bodies[i] = make(chan string, 1)
		go func() {
			// A JSON-only POST's headers come with its answer.
			resp := s.Open(context.Background(), "POST", c.header, c.body)
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			bodies[i] <- string(b)
		}()
		<-s.Engine.Started
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := s.Handler.Shutdown(ctx); err == nil {
		t.Fatal("Shutdown returned nil with calls that never end")
	}
	for i, c := range cases {
		body := <-bodies[i]
		var msg *jsonrpc.Message
		if c.sse {
			msgs := httptransport.Messages(t, httptransport.Events(t, body))
			if len(msgs) != 1 {
				t.Fatalf("%s: %d messages on the stream, want the one answer: %s", c.name, len(msgs), body)
			}
			msg = msgs[0]
		} else {
			var err error
			if msg, err = jsonrpc.Decode([]byte(body)); err != nil {
				t.Fatalf("%s: %s: %v", c.name, body, err)
			}
		}
		if msg.Error == nil || msg.Error.Code != jsonrpc.CodeServerError || msg.ID.Raw() != string(rune('1'+i)) {
			t.Errorf("%s: answered %+v; want error -32000 for id %d", c.name, msg, i+1)
		}
	}
	if msg := legacy.NextMessage(); msg.Error == nil || msg.Error.Code != jsonrpc.CodeServerError || msg.ID.Raw() != "9" {
		t.Errorf("2024-11-05: answered %+v on the event stream; want error -32000 for id 9", msg)
	}
}

// TestShutdownWaitsForLegacyAnswers: a graceful Shutdown keeps a
// 2024-11-05 event stream open while a call of its session runs, so the
// call's answer still reaches the client; then the stream ends and
// Shutdown returns nil. Before, the stream ended at once and the answer
// had nowhere to go; and it still did when the stream had not been taken
// over from net/http by then: always on HTTP/2, on HTTP/1.1 when Shutdown
// came before the GET's handler got that far (1 run in 7).
func TestShutdownWaitsForLegacyAnswers(t *testing.T) {
	t.Parallel()
	for _, h2 := range []bool{false, true} {
		s := httptransport.StartTestServer(t, httptransport.NewTestEngine(), nil, nil, h2)
		s.Engine.Gate = make(chan struct{})
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		legacy, endpoint := httptransport.OpenLegacyVia(t, ctx, s.Client, s.URL, nil)
		s.DoURL("POST", s.HTTPServer.URL+endpoint, http.Header{"Content-Type": {"application/json"}}, `{"jsonrpc":"2.0","id":"r","method":"tools/call","params":{"name":"remember","arguments":{"text":"r"}}}`)
		<-s.Engine.Started
		shut := make(chan error, 1)
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			shut <- s.Handler.Shutdown(ctx)
		}()
		// New requests are refused once Shutdown has ended the streams it
		// ends at once and waits for calls.
		for {
			resp, _ := s.Do("POST", http.Header{"Content-Type": {"application/json"}}, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
			if resp.StatusCode == http.StatusServiceUnavailable {
				break
			}
		}
		close(s.Engine.Gate)
		if msg := legacy.NextMessage(); msg.Error != nil || msg.ID.Raw() != `"r"` {
			t.Errorf("HTTP/2 %v: answer on the event stream %+v, want the call's result", h2, msg)
		}
		if err := <-shut; err != nil {
			t.Errorf("HTTP/2 %v: Shutdown: %v", h2, err)
		}
		if _, err := legacy.R.Next(); err == nil {
			t.Errorf("HTTP/2 %v: the event stream goes on after Shutdown", h2)
		}
	}
}
