package httptransport

// Behaviour the Go peers' users asked for (shared/research/go-peers.md,
// section c), pinned on every kind of stream.

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// TestServerWriteTimeoutShorterThanFlushDelay: go-sdk #1262. With default
// Options (header flush at 1 s) behind an http.Server whose WriteTimeout
// is 300 ms, a call whose tool answers after 600 ms of silence gets its
// answer, in both eras and over HTTP/1.1 and HTTP/2: the server's timeout,
// which would pass before the flush delay lifts it (and on HTTP/2 resets
// the stream when it fires), is lifted as the call starts.
func TestServerWriteTimeoutShorterThanFlushDelay(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		for _, h2 := range []bool{false, true} {
			for _, modern := range []bool{false, true} {
				s := newLiftServer(t, 600*time.Millisecond, 300*time.Millisecond, 0, h2)
				hdr, body := ModernHeaders("tools/call"), slowAnswerCall("late-ok")
				hdr.Set("Mcp-Name", "late-ok")
				if !modern {
					hdr = SessionHeaders(s.Initialize(Version20251125), Version20251125)
					body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"late-ok","arguments":{}}}`
				}
				req, _ := http.NewRequest("POST", s.URL, strings.NewReader(body))
				req.Header = hdr
				resp, err := s.Client.Do(req)
				var got []byte
				if err == nil {
					got, err = io.ReadAll(resp.Body)
					resp.Body.Close()
				}
				if err != nil || resp.StatusCode != 200 || !strings.Contains(string(got), `"text":"late"`) {
					t.Errorf("HTTP/2 %v, 2026-07-28 %v: server WriteTimeout 300 ms, tool silent 600 ms: %v %q", h2, modern, err, got)
				}
			}
		}
	})
}
