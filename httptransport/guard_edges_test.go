package httptransport_test

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mcpmount/mcpmount/httptransport"
)

// TestLegacyEndpointStaysOnHost: a GET whose path starts with "//" once
// made the endpoint event a network-path reference, which the client
// resolves to another host, where it would POST its messages (and
// credentials); the endpoint keeps one leading slash.
func TestLegacyEndpointStaysOnHost(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sseURL := s.HTTPServer.URL + "//evil.example/mcp"
	_, endpoint := httptransport.OpenLegacy(t, ctx, sseURL, nil)
	base, _ := url.Parse(sseURL)
	ref, err := url.Parse(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	if got := base.ResolveReference(ref); got.Host != base.Host {
		t.Errorf("endpoint %q resolves to host %q, not the server's %q", endpoint, got.Host, base.Host)
	}
}

// TestAcceptQZero: "application/json;q=0" says JSON is not acceptable
// (RFC 9110 12.4.2): the answer is not JSON, and a GET accepting only
// text/event-stream;q=0 gets 406.
func TestAcceptQZero(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, nil)
	h := httptransport.SessionHeaders("", "")
	h.Set("Accept", "application/json;q=0, text/event-stream")
	resp, body := s.Do("POST", h, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`)
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Errorf("Accept with application/json;q=0: %d %s %q", resp.StatusCode, ct, body)
	}
	// And a 2024-11-05 stream is opened for a client refusing event streams.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	resp = s.Open(ctx, "GET", http.Header{"Accept": {"text/event-stream;q=0"}}, "")
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotAcceptable {
		t.Errorf("GET with Accept text/event-stream;q=0: %d, want 406", resp.StatusCode)
	}
}

// TestOversizedAnnouncedBody: a body announced larger than MaxBodyBytes
// gets 413 at once, not asked for under Expect: 100-continue (the client
// was told to send what would be refused, and one that sent nothing more
// got no answer at all).
func TestOversizedAnnouncedBody(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, &httptransport.Options{MaxBodyBytes: 1024})
	conn, err := net.Dial("tcp", s.HTTPServer.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(2 * time.Second))
	_, _ = conn.Write([]byte("POST /mcp HTTP/1.1\r\nHost: " + s.HTTPServer.Listener.Addr().String() +
		"\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n" +
		"Expect: 100-continue\r\nContent-Length: 100000000\r\n\r\n"))
	line, err := bufio.NewReader(conn).ReadString('\n')
	if !strings.HasPrefix(line, "HTTP/1.1 413") {
		t.Errorf("announced 100 MB body, limit 1 KiB: first line %q (%v), want 413 at once", line, err)
	}
}

// TestOriginEntriesNormalized: AllowedOrigins entries match the origin a
// browser sends (lower case, no default port) whatever their case or
// default port, and AllowedHosts matches Host in any case (both were once
// compared byte for byte).
func TestOriginEntriesNormalized(t *testing.T) {
	t.Parallel()
	valid := `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + httptransport.Meta + `}}`
	for _, entry := range []string{"https://app.example:443", "https://App.Example"} {
		s := httptransport.NewTestServer(t, &httptransport.Options{AllowedOrigins: []string{entry}})
		h := httptransport.ModernHeaders("server/discover")
		h.Set("Origin", "https://app.example")
		if resp, _ := s.Do("POST", h, valid); resp.StatusCode != 200 {
			t.Errorf("AllowedOrigins %q, Origin https://app.example: %d", entry, resp.StatusCode)
		}
	}
	s := httptransport.NewTestServer(t, &httptransport.Options{AllowedHosts: []string{"myapp.test"}})
	req, _ := http.NewRequest("POST", s.URL, strings.NewReader(valid))
	req.Header = httptransport.ModernHeaders("server/discover")
	req.Host = "MyApp.Test"
	resp, err := s.Client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("AllowedHosts myapp.test, Host MyApp.Test: %d", resp.StatusCode)
	}
}
