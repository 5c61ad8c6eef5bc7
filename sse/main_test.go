package sse

import (
	"bytes"
	"net/http"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// memWriter is an in-memory http.ResponseWriter and http.Flusher that
// records what was written and how.
type memWriter struct {
	header  http.Header
	body    bytes.Buffer
	writes  int
	flushes int
}

func newMemWriter() *memWriter {
	return &memWriter{header: make(http.Header)}
}

func (m *memWriter) Header() http.Header { return m.header }

func (m *memWriter) Write(p []byte) (int, error) {
	m.writes++
	return m.body.Write(p)
}

func (m *memWriter) WriteHeader(int) {}

func (m *memWriter) Flush() { m.flushes++ }

// unwrapOnly wraps a ResponseWriter the way gin and chi middleware do: it
// implements only the ResponseWriter methods and Unwrap, hiding Flush,
// SetWriteDeadline and the rest from type assertions.
type unwrapOnly struct {
	rw http.ResponseWriter
}

func (u *unwrapOnly) Header() http.Header         { return u.rw.Header() }
func (u *unwrapOnly) Write(p []byte) (int, error) { return u.rw.Write(p) }
func (u *unwrapOnly) WriteHeader(code int)        { u.rw.WriteHeader(code) }
func (u *unwrapOnly) Unwrap() http.ResponseWriter { return u.rw }

// expected returns the event a Reader should produce for e after a Writer
// has written it.
func expected(e Event) Event {
	if e.IsComment {
		return Event{IsComment: true, Comment: sanitizeComment(e.Comment)}
	}
	want := Event{
		ID:    e.ID,
		HasID: e.HasID || e.ID != "",
		Name:  e.Name,
		Data:  normalizeBreaks(e.Data),
	}
	if e.Retry > 0 {
		want.Retry = max(e.Retry.Truncate(time.Millisecond), time.Millisecond)
	}
	return want
}

// normalizeBreaks replaces every "\r\n" and lone "\r" in b with "\n".
func normalizeBreaks(b []byte) []byte {
	b = bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n"))
	return bytes.ReplaceAll(b, []byte("\r"), []byte("\n"))
}

// sanitizeComment is what a comment's text becomes on the wire.
func sanitizeComment(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c == '\r' || c == '\n' {
			b[i] = ' '
		}
	}
	return string(b)
}

// equalEvents reports whether a and b are the same event, treating nil and
// empty Data as equal.
func equalEvents(a, b Event) bool {
	return a.ID == b.ID && a.HasID == b.HasID && a.Name == b.Name &&
		bytes.Equal(a.Data, b.Data) && a.Retry == b.Retry &&
		a.IsComment == b.IsComment && a.Comment == b.Comment
}
