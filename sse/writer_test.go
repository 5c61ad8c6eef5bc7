package sse

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"
)

func TestWriterWire(t *testing.T) {
	tests := []struct {
		name string
		in   Event
		want string
	}{
		{"data only", Event{Data: []byte(`{"a":1}`)}, "data: {\"a\":1}\n\n"},
		{"nil data", Event{}, "data:\n\n"},
		{"empty data", Event{Data: []byte{}}, "data:\n\n"},
		{"all fields", Event{ID: "42", Name: "message", Retry: 2500 * time.Millisecond, Data: []byte("x")},
			"id: 42\nevent: message\nretry: 2500\ndata: x\n\n"},
		{"empty id", Event{HasID: true, Data: []byte("x")}, "id:\ndata: x\n\n"},
		{"id without HasID", Event{ID: "7", Data: []byte("x")}, "id: 7\ndata: x\n\n"},
		{"leading spaces kept", Event{ID: " a", Name: " b", Data: []byte(" c")}, "id:  a\nevent:  b\ndata:  c\n\n"},
		{"sub-millisecond retry", Event{Retry: time.Microsecond}, "retry: 1\ndata:\n\n"},
		{"fractional retry", Event{Retry: 1999 * time.Microsecond}, "retry: 1\ndata:\n\n"},
		{"negative retry", Event{Retry: -time.Second}, "data:\n\n"},
		{"LF", Event{Data: []byte("a\nb")}, "data: a\ndata: b\n\n"},
		{"CRLF", Event{Data: []byte("a\r\nb")}, "data: a\ndata: b\n\n"},
		{"CR", Event{Data: []byte("a\rb")}, "data: a\ndata: b\n\n"},
		{"LF CR is two breaks", Event{Data: []byte("a\n\rb")}, "data: a\ndata:\ndata: b\n\n"},
		{"trailing LF", Event{Data: []byte("a\n")}, "data: a\ndata:\n\n"},
		{"only breaks", Event{Data: []byte("\r\n\r")}, "data:\ndata:\ndata:\n\n"},
		{"comment", Event{IsComment: true, Comment: "ping", ID: "ignored", Data: []byte("ignored")}, ": ping\n\n"},
		{"empty comment", Event{IsComment: true}, ":\n\n"},
		{"comment breaks", Event{IsComment: true, Comment: "a\r\nb\rc\nd"}, ": a  b c d\n\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMemWriter()
			if err := NewWriter(m).WriteEvent(tt.in); err != nil {
				t.Fatalf("WriteEvent: %v", err)
			}
			if got := m.body.String(); got != tt.want {
				t.Errorf("wire = %q, want %q", got, tt.want)
			}
			if m.writes != 1 || m.flushes != 1 {
				t.Errorf("writes = %d, flushes = %d; want 1 and 1", m.writes, m.flushes)
			}
		})
	}
}

func TestWriteComment(t *testing.T) {
	m := newMemWriter()
	w := NewWriter(m)
	for _, c := range []string{"keep-alive", "", "multi\nline"} {
		if err := w.WriteComment(c); err != nil {
			t.Fatalf("WriteComment(%q): %v", c, err)
		}
	}
	if got, want := m.body.String(), ": keep-alive\n\n:\n\n: multi line\n\n"; got != want {
		t.Errorf("wire = %q, want %q", got, want)
	}
	if m.writes != 3 || m.flushes != 3 {
		t.Errorf("writes = %d, flushes = %d; want 3 and 3", m.writes, m.flushes)
	}
}

func TestWriterInvalidField(t *testing.T) {
	for _, e := range []Event{
		{ID: "1\n2"},
		{ID: "1\r"},
		{ID: "a\x00b"},
		{Name: "x\ndata: injected"},
		{Name: "x\r"},
	} {
		m := newMemWriter()
		err := NewWriter(m).WriteEvent(e)
		if !errors.Is(err, ErrInvalidField) {
			t.Errorf("WriteEvent(%+v) = %v, want ErrInvalidField", e, err)
		}
		if m.writes != 0 || m.flushes != 0 {
			t.Errorf("WriteEvent(%+v) wrote %d times and flushed %d times, want nothing", e, m.writes, m.flushes)
		}
	}
	// A NUL in the event name is legal: clients keep it.
	if err := NewWriter(newMemWriter()).WriteEvent(Event{Name: "a\x00b"}); err != nil {
		t.Errorf("WriteEvent with NUL in name: %v", err)
	}
}

// TestBuffer: events written with Buffer are on the wire as WriteEvent
// writes them, unflushed until the next flushing write, which takes them
// all in one flush; invalid fields and write errors are reported as
// WriteEvent reports them, and a writer that cannot flush takes them.
func TestBuffer(t *testing.T) {
	m := newMemWriter()
	w := NewWriter(m)
	for _, e := range []Event{{ID: "1", Data: []byte("a")}, {IsComment: true, Comment: "c"}, {Name: "message", Data: []byte("b\nc")}} {
		if err := w.Buffer(e); err != nil {
			t.Fatalf("Buffer(%+v): %v", e, err)
		}
	}
	if m.flushes != 0 {
		t.Fatalf("flushes after Buffer = %d, want 0", m.flushes)
	}
	if err := w.WriteEvent(Event{Data: []byte("end")}); err != nil {
		t.Fatalf("WriteEvent: %v", err)
	}
	if got, want := m.body.String(), "id: 1\ndata: a\n\n: c\n\nevent: message\ndata: b\ndata: c\n\ndata: end\n\n"; got != want {
		t.Errorf("wire = %q, want %q", got, want)
	}
	if m.writes != 4 || m.flushes != 1 {
		t.Errorf("writes = %d, flushes = %d; want 4 and 1", m.writes, m.flushes)
	}
	if err := w.Buffer(Event{ID: "a\nb"}); !errors.Is(err, ErrInvalidField) {
		t.Errorf("Buffer with a line break in the id = %v, want ErrInvalidField", err)
	}
	if err := w.Buffer(Event{Name: "a\rb"}); !errors.Is(err, ErrInvalidField) {
		t.Errorf("Buffer with a line break in the name = %v, want ErrInvalidField", err)
	}
	if m.writes != 4 {
		t.Errorf("an invalid event was written (%d writes)", m.writes)
	}
	f := &failWriter{memWriter{header: make(http.Header)}}
	if err := NewWriter(f).Buffer(Event{Data: []byte("x")}); !errors.Is(err, errBroken) {
		t.Errorf("Buffer on a failing writer = %v, want an error wrapping %v", err, errBroken)
	}
	rw := struct{ http.ResponseWriter }{newMemWriter()}
	if err := NewWriter(rw).Buffer(Event{Data: []byte("x")}); err != nil {
		t.Errorf("Buffer on a writer that cannot flush = %v, want nil", err)
	}
}

func TestWriterWithoutFlusher(t *testing.T) {
	rw := struct{ http.ResponseWriter }{newMemWriter()}
	w := NewWriter(rw)
	if err := w.WriteEvent(Event{Data: []byte("x")}); !errors.Is(err, http.ErrNotSupported) {
		t.Errorf("WriteEvent = %v, want an error wrapping http.ErrNotSupported", err)
	}
	if err := w.WriteComment("x"); !errors.Is(err, http.ErrNotSupported) {
		t.Errorf("WriteComment = %v, want an error wrapping http.ErrNotSupported", err)
	}
	if err := w.Flush(); !errors.Is(err, http.ErrNotSupported) {
		t.Errorf("Flush = %v, want an error wrapping http.ErrNotSupported", err)
	}
	if err := w.SetWriteDeadline(time.Now()); err != nil {
		t.Errorf("SetWriteDeadline without support = %v, want nil", err)
	}
}

var errBroken = errors.New("broken pipe")

// failWriter fails every Write.
type failWriter struct{ memWriter }

func (f *failWriter) Write([]byte) (int, error) { return 0, errBroken }

func TestWriterWriteError(t *testing.T) {
	f := &failWriter{memWriter{header: make(http.Header)}}
	w := NewWriter(f)
	if err := w.WriteEvent(Event{Data: []byte("x")}); !errors.Is(err, errBroken) {
		t.Errorf("WriteEvent = %v, want an error wrapping %v", err, errBroken)
	}
	if f.flushes != 0 {
		t.Errorf("flushed %d times after a failed write, want 0", f.flushes)
	}
	if err := w.WriteComment("x"); !errors.Is(err, errBroken) {
		t.Errorf("WriteComment = %v, want an error wrapping %v", err, errBroken)
	}
}

func TestWriterThroughUnwrap(t *testing.T) {
	m := newMemWriter()
	w := NewWriter(&unwrapOnly{m})
	if err := w.WriteEvent(Event{Data: []byte("x")}); err != nil {
		t.Fatalf("WriteEvent: %v", err)
	}
	if err := w.Flush(); err != nil {
		t.Fatalf("Flush: %v", err)
	}
	if m.writes != 1 || m.flushes != 2 {
		t.Errorf("writes = %d, flushes = %d; want 1 and 2", m.writes, m.flushes)
	}
}

func TestSetHeaders(t *testing.T) {
	h := http.Header{"Content-Type": {"application/json"}}
	SetHeaders(h)
	want := map[string]string{
		"Content-Type":      "text/event-stream",
		"Cache-Control":     "no-cache, no-transform",
		"X-Accel-Buffering": "no",
	}
	for k, v := range want {
		if got := h.Values(k); len(got) != 1 || got[0] != v {
			t.Errorf("%s = %q, want [%q]", k, got, v)
		}
	}
	if len(h) != len(want) {
		t.Errorf("header has %d keys, want %d: %v", len(h), len(want), h)
	}
}

func TestSetWriteDeadline(t *testing.T) {
	t.Run("unsupported", func(t *testing.T) {
		w := NewWriter(httptest.NewRecorder())
		if err := w.SetWriteDeadline(time.Now().Add(time.Minute)); err != nil {
			t.Errorf("SetWriteDeadline = %v, want nil", err)
		}
		if err := w.SetWriteDeadline(time.Time{}); err != nil {
			t.Errorf("SetWriteDeadline(zero) = %v, want nil", err)
		}
	})
	for _, wrap := range []bool{false, true} {
		t.Run("server/unwrap="+map[bool]string{false: "no", true: "yes"}[wrap], func(t *testing.T) {
			result := make(chan error, 1)
			ts := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
				if wrap {
					rw = &unwrapOnly{rw}
				}
				SetHeaders(rw.Header())
				w := NewWriter(rw)
				if err := w.WriteEvent(Event{Data: []byte("first")}); err != nil {
					result <- err
					return
				}
				if err := w.SetWriteDeadline(time.Now().Add(-time.Second)); err != nil {
					result <- err
					return
				}
				result <- w.WriteEvent(Event{Data: []byte("late")})
			}))
			defer ts.Close()
			resp, err := ts.Client().Get(ts.URL)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if err := <-result; !errors.Is(err, os.ErrDeadlineExceeded) {
				t.Errorf("WriteEvent after a past deadline = %v, want an error wrapping os.ErrDeadlineExceeded", err)
			}
		})
	}
}

func TestWriterReleasesLargeBuffer(t *testing.T) {
	w := NewWriter(newMemWriter())
	if err := w.WriteEvent(Event{Data: make([]byte, 2*maxRetainedBuffer)}); err != nil {
		t.Fatal(err)
	}
	if cap(w.buf) > maxRetainedBuffer {
		t.Errorf("buffer of %d bytes retained after a large event, limit %d", cap(w.buf), maxRetainedBuffer)
	}
	if err := w.WriteEvent(Event{Data: []byte("small")}); err != nil {
		t.Fatal(err)
	}
	if cap(w.buf) == 0 {
		t.Error("small buffer not retained")
	}
}

func TestWriteEventAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	json := []byte(`{"jsonrpc":"2.0","id":17,"result":{"content":[{"type":"text","text":"hello"}]}}`)
	rw := &discardWriter{header: make(http.Header)}
	w := NewWriter(rw)
	for _, e := range []Event{
		{ID: "stream-1:17", Name: "message", Data: json},
		{Data: []byte("multi\nline\r\ndata\r")},
		{Retry: time.Second},
		{IsComment: true, Comment: "keep-alive"},
	} {
		allocs := testing.AllocsPerRun(100, func() {
			if err := w.WriteEvent(e); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("WriteEvent(%+v) allocates %.1f times per call, want 0", e, allocs)
		}
	}
	allocs := testing.AllocsPerRun(100, func() {
		if err := w.WriteComment("keep-alive"); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("WriteComment allocates %.1f times per call, want 0", allocs)
	}
}

// discardWriter is an in-memory ResponseWriter that discards the body.
type discardWriter struct {
	header http.Header
	n      int64
}

func (d *discardWriter) Header() http.Header { return d.header }

func (d *discardWriter) Write(p []byte) (int, error) {
	d.n += int64(len(p))
	return len(p), nil
}

func (d *discardWriter) WriteHeader(int) {}

func (d *discardWriter) Flush() {}
