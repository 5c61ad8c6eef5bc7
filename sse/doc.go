// Package sse implements the Server-Sent Events wire format used by the
// streamable HTTP transport of the Model Context Protocol.
//
// The package has two halves. A [Writer] encodes [Event] values onto an
// [net/http.ResponseWriter] and flushes each one as soon as it is written, so
// that a client sees every message without waiting for the response to end.
// A [Reader] is a strict parser of an event stream, meant for clients and
// tests: it follows the WHATWG HTML "Server-sent events" parsing rules but
// refuses, with an error wrapping [ErrTooLarge], to buffer lines or events
// larger than a configured limit.
//
// # Line breaks inside data
//
// The wire format cannot carry a carriage return inside a data line, because
// CR, LF and CRLF all end a line. The writer therefore splits Data on every
// line break it finds ("\r\n", "\r" or "\n", each counted once) and writes
// one "data:" line per piece. A conforming reader joins those lines with a
// single "\n", so the data read back equals the data written with every
// "\r\n" and lone "\r" replaced by "\n". JSON produced by json.Marshal
// never contains raw line breaks, so for MCP messages the data read back is
// byte for byte the data written. (json.Encoder.Encode, by contrast, appends
// a "\n", which becomes a trailing empty data line; trim it before writing.)
//
// # Bytes, not text
//
// Neither half decodes UTF-8: field values and data pass through as raw
// bytes. A browser EventSource would replace invalid UTF-8 sequences with
// U+FFFD; this package leaves that to the caller.
//
// # Concurrency
//
// A Writer or Reader may be used by only one goroutine at a time. Callers
// that write from several goroutines (for example a keep-alive ticker and
// the message pump) must serialise their calls.
package sse
