package httptransport_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpmount/mcpmount/httptransport"
)

// TestLoneSurrogateIDsApart: two requests whose ids are different JSON
// strings ("\ud800" and "\udbff") are two ids in flight (ID.Key once
// mapped both to U+FFFD, and the second was refused).
func TestLoneSurrogateIDsApart(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, nil)
	sid := s.Initialize(httptransport.Version20251125)
	h := httptransport.SessionHeaders(sid, httptransport.Version20251125)
	h.Set("Accept", "application/json") // a JSON answer we can read whole
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	first := make(chan struct{})
	go func() {
		defer close(first)
		req, _ := http.NewRequestWithContext(ctx, "POST", s.URL, strings.NewReader(`{"jsonrpc":"2.0","id":"\ud800","method":"tools/call","params":{"name":"slow","arguments":{"text":"a"}}}`))
		req.Header = h.Clone()
		if resp, err := s.Client.Do(req); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}()
	<-s.Engine.Started
	second := make(chan string, 1)
	go func() {
		req, _ := http.NewRequestWithContext(ctx, "POST", s.URL, strings.NewReader(`{"jsonrpc":"2.0","id":"\udbff","method":"tools/call","params":{"name":"slow","arguments":{"text":"b"}}}`))
		req.Header = h.Clone()
		resp, err := s.Client.Do(req)
		if err != nil {
			second <- err.Error()
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		second <- string(b)
	}()
	select {
	case <-s.Engine.Started: // served as a separate call: right
	case body := <-second:
		t.Errorf(`request "\udbff" refused while "\ud800" is in flight: %s`, body)
	case <-time.After(3 * time.Second):
		t.Error("second call neither started nor answered")
	}
	// End both calls.
	s.Do("DELETE", httptransport.SessionHeaders(sid, httptransport.Version20251125), "")
	<-first
	for len(s.Engine.Cancelled) > 0 {
		<-s.Engine.Cancelled
	}
	cancel()
}
