// Package bench compares mcpmount's HTTP transport with a plain net/http
// floor and with the Go peers (go-sdk's StreamableHTTPHandler and mcp-go's
// StreamableHTTPServer), all serving the same trivial tools over loopback
// HTTP. The benchmarks live in bench_test.go; cmd/benchtable runs them in
// alternating rounds and prints the table.
package bench

import (
	"strconv"
)

// The tools every server variant serves:
//
//   - "echo" answers {"content":[{"type":"text","text":<arguments.text>}]};
//   - "progress" sends arguments.count notifications/progress for the
//     request's progress token, then answers {"content":[{"type":"text",
//     "text":"done"}]}.
const (
	EchoText     = "hello, world"
	ProgressDone = "done"
	ProgressN    = 10

	Version2026 = "2026-07-28"
	Version2025 = "2025-11-25"
)

// meta2026 is the params._meta every 2026-07-28 request carries.
const meta2026 = `"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}`

// Request bodies, the same bytes for every variant.
var (
	BodyEcho2026     = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + EchoText + `"},"_meta":{` + meta2026 + `}}}`
	BodyProgress2026 = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"progress","arguments":{"count":` + strconv.Itoa(ProgressN) + `},"_meta":{"progressToken":"p1",` + meta2026 + `}}}`
	BodyListen2026   = `{"jsonrpc":"2.0","id":"L1","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},"_meta":{` + meta2026 + `}}}`
	BodyEcho2025     = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + EchoText + `"}}}`
	BodyInit2025     = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + Version2025 + `","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`
	BodyInitialized  = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

// header is one request header line.
type header struct{ name, value string }

// BuildRequest returns the bytes of an HTTP/1.1 request; a POST carries
// body with the JSON content type.
func BuildRequest(method, host, path string, hs []header, body string) []byte {
	b := make([]byte, 0, 512+len(body))
	b = append(b, method...)
	b = append(b, ' ')
	b = append(b, path...)
	b = append(b, " HTTP/1.1\r\nHost: "...)
	b = append(b, host...)
	b = append(b, "\r\n"...)
	for _, h := range hs {
		b = append(b, h.name...)
		b = append(b, ": "...)
		b = append(b, h.value...)
		b = append(b, "\r\n"...)
	}
	if method == "POST" {
		b = append(b, "Content-Type: application/json\r\nContent-Length: "...)
		b = strconv.AppendInt(b, int64(len(body)), 10)
		b = append(b, "\r\n"...)
	}
	b = append(b, "\r\n"...)
	return append(b, body...)
}

const acceptBoth = "application/json, text/event-stream"

// Headers2026 are the headers of a 2026-07-28 request for method (and
// Mcp-Name, when name is set).
func Headers2026(method, name string) []header {
	hs := []header{
		{"Accept", acceptBoth},
		{"Mcp-Protocol-Version", Version2026},
		{"Mcp-Method", method},
	}
	if name != "" {
		hs = append(hs, header{"Mcp-Name", name})
	}
	return hs
}

// Headers2025 are the headers of a 2025-11-25 request in session sid (none
// when sid is empty).
func Headers2025(sid string) []header {
	hs := []header{{"Accept", acceptBoth}, {"Mcp-Protocol-Version", Version2025}}
	if sid != "" {
		hs = append(hs, header{"Mcp-Session-Id", sid})
	}
	return hs
}
