package sse

import "net/http"

// SetHeaders sets the headers of an event-stream response on h. It must be
// called before the first byte of the body is written.
//
// It sets "Content-Type: text/event-stream", "Cache-Control: no-cache,
// no-transform" (so that neither caches nor transforming proxies such as
// compressors hold events back) and "X-Accel-Buffering: no" (so that nginx
// does not buffer the stream).
//
// It deliberately does not set "Connection: keep-alive": HTTP/1.1
// connections are persistent by default, HTTP/2 and HTTP/3 forbid the
// header, and net/http manages the header itself for HTTP/1.0 clients, so
// setting it could only be wrong.
func SetHeaders(h http.Header) {
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache, no-transform")
	h.Set("X-Accel-Buffering", "no")
}
