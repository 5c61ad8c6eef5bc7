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
// on SSE as in JSON, in every era, so their clients know to send them
// again; before, an SSE client got an empty stream.
func TestShutdownAnswersAbandonedCalls(t *testing.T) {
	s := httptransport.NewTestServer(t, &httptransport.Options{HeaderFlushDelay: 10 * time.Millisecond})
	sid := s.Initialize(httptransport.Version20251125)
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
}
