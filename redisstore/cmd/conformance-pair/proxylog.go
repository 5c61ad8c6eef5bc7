package main

import (
	"errors"
	"io"
	"log"
	"net/http"
)

// loggedTransport is the proxy's transport. It logs each response whose
// body ends in an error while the client is still there: the proxy then
// closes the client's connection mid-response, which a Node.js client
// reports as "terminated" (how golang/go#40747 showed itself here, before
// examples/roundrobin read request bodies whole).
type loggedTransport struct{ next http.RoundTripper }

// RoundTrip sends r through the next transport and wraps the response's
// body in a loggedBody.
func (t loggedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(r)
	if err != nil {
		return nil, err // the proxy logs it
	}
	resp.Body = &loggedBody{ReadCloser: resp.Body, req: r, status: resp.StatusCode}
	return resp, nil
}

// loggedBody is a response body that logs the error it ends with.
type loggedBody struct {
	io.ReadCloser
	req    *http.Request
	status int
	read   int64
}

// Read reads from the instance's response, logging an error other than
// its end or the client's leaving.
func (b *loggedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.read += int64(n)
	if err != nil && !errors.Is(err, io.EOF) && b.req.Context().Err() == nil {
		log.Printf("proxy: %s %s (session %q) from %s: status %d, body cut after %d bytes: %v",
			b.req.Method, b.req.URL.Path, b.req.Header.Get("Mcp-Session-Id"), b.req.URL.Host, b.status, b.read, err)
	}
	return n, err
}
