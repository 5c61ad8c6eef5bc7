package httptransport

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// OpenLegacy opens a 2024-11-05 stream at path and returns the reader and
// the endpoint URI of its first event.
func OpenLegacy(t *testing.T, ctx context.Context, rawURL string, header http.Header) (*SSEReader, string) {
	t.Helper()
	return OpenLegacyVia(t, ctx, http.DefaultClient, rawURL, header)
}

// OpenLegacyVia is OpenLegacy with client (a TestServer's, to speak
// HTTP/2 with it).
func OpenLegacyVia(t *testing.T, ctx context.Context, client *http.Client, rawURL string, header http.Header) (*SSEReader, string) {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, "GET", rawURL, nil)
	req.Header.Set("Accept", "text/event-stream")
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("GET: %d %v", resp.StatusCode, resp.Header)
	}
	r := NewSSEReader(t, resp.Body)
	e := r.Next()
	if e.Name != "endpoint" {
		t.Fatalf("first event %q, want endpoint", e.Name)
	}
	return r, string(e.Data)
}

// TestLegacyShutdown: Shutdown ends 2024-11-05 streams, and their sessions.
func TestLegacyShutdown(t *testing.T) {
	t.Parallel()
	s := NewTestServer(t, &Options{KeepAlive: 10 * time.Millisecond})
	r, endpoint := OpenLegacy(t, context.Background(), s.URL, nil)
	e, err := r.R.Next() // keep-alive comments flow on the legacy stream
	if err != nil || !e.IsComment {
		t.Fatalf("expected a keep-alive comment, got %+v %v", e, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.Handler.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := r.R.Next(); err != nil {
			break // the stream ended
		}
	}
	s.Handler.mu.Lock()
	n := len(s.Handler.live)
	s.Handler.mu.Unlock()
	if n != 0 {
		t.Errorf("%d sessions alive after Shutdown (endpoint %s)", n, endpoint)
	}
}

// versionsEngine serves only the versions it lists.
type versionsEngine struct {
	*TestEngine
	versions []string
}

func (e versionsEngine) Describe(ctx context.Context) *Description {
	d := *e.TestEngine.Describe(ctx)
	d.Versions = e.versions
	return &d
}

// TestLegacyFollowsEngineVersions: an engine that does not serve
// 2024-11-05 gets no 2024-11-05 session: the GET that would open one gets
// 405, as from a server without that transport, with an error naming the
// transport to use, and the engine opens nothing.
func TestLegacyFollowsEngineVersions(t *testing.T) {
	t.Parallel()
	te := NewTestEngine()
	s := StartTestServer(t, te, nil, nil, false)
	s.Handler.engine = versionsEngine{te, []string{Version20260728, Version20251125}}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp := s.Open(ctx, "GET", http.Header{"Accept": {"text/event-stream"}}, "")
	body, _ := io.ReadAll(resp.Body) // a stream wrongly opened ends with ctx
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "POST" {
		t.Errorf("2024-11-05 GET to an engine without it: %d %v", resp.StatusCode, resp.Header)
	}
	if !strings.Contains(string(body), "use Streamable HTTP") {
		t.Errorf("2024-11-05 GET to an engine without it: %s, want the error to name the transport to use", body)
	}
	te.Mu.Lock()
	opened := len(te.Outs)
	te.Mu.Unlock()
	if opened != 0 {
		t.Errorf("the engine opened %d sessions", opened)
	}
}
