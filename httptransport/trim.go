package httptransport

import (
	"net/http"
	"strings"
)

// trimHeaders returns r with the whitespace around its MCP header values
// (Mcp-*, and Last-Event-ID) removed, as RFC 9110 §5.5 has recipients do
// before reading a field value (spec 2026-07-28 basic/transports/streamable-http). net/http does it for HTTP/1.x
// itself; HTTP/2 hands values over as sent. r is copied, never modified,
// and only when a value has such whitespace.
func trimHeaders(r *http.Request) *http.Request {
	if r.ProtoMajor < 2 {
		return r
	}
	var header http.Header
	for name, values := range r.Header {
		if !strings.HasPrefix(name, "Mcp-") && name != "Last-Event-Id" {
			continue
		}
		for i, v := range values {
			t := strings.Trim(v, " \t")
			if t == v {
				continue
			}
			if header == nil {
				header = r.Header.Clone()
			}
			header[name][i] = t
		}
	}
	if header == nil {
		return r
	}
	r2 := r.WithContext(r.Context())
	r2.Header = header
	return r2
}
