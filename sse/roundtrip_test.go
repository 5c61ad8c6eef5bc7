package sse

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// roundTripEvents covers every field, multi-line data, empty data and
// comments.
var roundTripEvents = []Event{
	{ID: "1", Name: "message", Data: []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`)},
	{Data: []byte("line1\nline2\n\nline4")},
	{HasID: true},
	{ID: "stream-7:3", Retry: 1500 * time.Millisecond, Data: []byte(" leading space")},
	{IsComment: true, Comment: "keep-alive"},
	{Name: "endpoint", Data: []byte("crlf\r\ncr\rlf\ntrailing\n")},
	{IsComment: true},
	{Data: []byte{}},
}

// handshakeTimeout only guards against a deadlock; a passing run never
// waits for it.
const handshakeTimeout = 30 * time.Second

// TestRoundTrip writes events through a real server and reads them back.
// After each event the handler waits for the client to acknowledge it
// before writing the next one, so the test deadlocks (and fails) unless
// every event is flushed as soon as it is written.
func TestRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name  string
		http2 bool
		wrap  bool
	}{
		{"http1", false, false},
		{"http1/unwrap", false, true},
		{"http2", true, false},
		{"http2/unwrap", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			testRoundTrip(t, tc.http2, tc.wrap)
		})
	}
}

func testRoundTrip(t *testing.T, useHTTP2, wrap bool) {
	ack := make(chan int)
	handlerDone := make(chan struct{})
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		defer close(handlerDone)
		if wrap {
			rw = &unwrapOnly{rw}
		}
		SetHeaders(rw.Header())
		w := NewWriter(rw)
		timeout := time.NewTimer(handshakeTimeout)
		defer timeout.Stop()
		for i, e := range roundTripEvents {
			if err := w.WriteEvent(e); err != nil {
				t.Errorf("WriteEvent %d: %v", i, err)
				return
			}
			select {
			case got := <-ack:
				if got != i {
					t.Errorf("client acknowledged event %d, want %d", got, i)
					return
				}
			case <-timeout.C:
				t.Errorf("client never received event %d: it was not flushed", i)
				return
			case <-r.Context().Done():
				t.Errorf("request ended before event %d was acknowledged", i)
				return
			}
		}
	}))
	if useHTTP2 {
		ts.EnableHTTP2 = true
		ts.StartTLS()
	} else {
		ts.Start()
	}
	defer ts.Close()

	ctx, cancel := context.WithTimeout(t.Context(), 2*handshakeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, ts.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if wantMajor := map[bool]int{false: 1, true: 2}[useHTTP2]; resp.ProtoMajor != wantMajor {
		t.Fatalf("response protocol %s, want major version %d", resp.Proto, wantMajor)
	}
	if got := resp.Header.Get("Content-Type"); got != "text/event-stream" {
		t.Errorf("Content-Type = %q", got)
	}
	if got := resp.Header.Get("Cache-Control"); got != "no-cache, no-transform" {
		t.Errorf("Cache-Control = %q", got)
	}
	if got := resp.Header.Get("X-Accel-Buffering"); got != "no" {
		t.Errorf("X-Accel-Buffering = %q", got)
	}

	rd := NewReader(resp.Body)
	for i, e := range roundTripEvents {
		got, err := rd.Next()
		if err != nil {
			t.Fatalf("Next for event %d: %v", i, err)
		}
		if want := expected(e); !equalEvents(got, want) {
			t.Errorf("event %d = %+v, want %+v", i, got, want)
		}
		select {
		case ack <- i:
		case <-handlerDone:
			t.Fatalf("handler gave up before event %d was acknowledged", i)
		}
	}
	if _, err := rd.Next(); !errors.Is(err, io.EOF) {
		t.Errorf("Next after the last event = %v, want io.EOF", err)
	}
	<-handlerDone
}
