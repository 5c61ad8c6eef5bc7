package sse

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"testing"
	"testing/iotest"
	"time"
)

// refParse is a deliberately naive reference parser: it splits the whole
// input into lines first and then applies the WHATWG rules, with the same
// reporting conventions as Reader but no size limits.
func refParse(in []byte) []Event {
	in = bytes.TrimPrefix(in, []byte(utf8BOM))
	var lines [][]byte
	start := 0
	for i := 0; i < len(in); i++ {
		switch in[i] {
		case '\n':
			lines = append(lines, in[start:i])
			start = i + 1
		case '\r':
			lines = append(lines, in[start:i])
			if i+1 < len(in) && in[i+1] == '\n' {
				i++
			}
			start = i + 1
		}
	}
	// Whatever follows the last line break is an unterminated line,
	// discarded at end of stream.

	var events []Event
	var cur Event
	var buf []byte
	hasData := false
	for _, line := range lines {
		switch {
		case len(line) == 0:
			if hasData {
				cur.Data = buf[:len(buf)-1]
				events = append(events, cur)
			}
			cur, buf, hasData = Event{}, nil, false
		case line[0] == ':':
			text, _ := bytes.CutPrefix(line[1:], []byte(" "))
			events = append(events, Event{IsComment: true, Comment: string(text)})
		default:
			field, value, _ := bytes.Cut(line, []byte(":"))
			value, _ = bytes.CutPrefix(value, []byte(" "))
			switch string(field) {
			case "event":
				cur.Name = string(value)
			case "data":
				buf = append(append(buf, value...), '\n')
				hasData = true
			case "id":
				if !bytes.Contains(value, []byte{0}) {
					cur.ID, cur.HasID = string(value), true
				}
			case "retry":
				if ms, err := strconv.ParseUint(string(value), 10, 63); err == nil &&
					value[0] != '+' && ms <= uint64(1<<63-1)/uint64(time.Millisecond) {
					cur.Retry = time.Duration(ms) * time.Millisecond
				}
			}
		}
	}
	return events
}

// readAll reads events from rd until an error, failing the test if there
// are more than limit of them (a parser stuck in a loop).
func readAll(t *testing.T, rd *Reader, limit int) ([]Event, error) {
	t.Helper()
	var events []Event
	for {
		e, err := rd.Next()
		if err != nil {
			return events, err
		}
		events = append(events, e)
		if len(events) > limit {
			t.Fatalf("more than %d events from %d bytes of input", limit, limit)
		}
	}
}

func checkInvariants(t *testing.T, e Event, maxEvent int) {
	t.Helper()
	if e.IsComment {
		if e.ID != "" || e.HasID || e.Name != "" || e.Data != nil || e.Retry != 0 {
			t.Fatalf("comment with other fields set: %+v", e)
		}
		if len(e.Comment) > maxEvent || bytes.ContainsAny([]byte(e.Comment), "\r\n") {
			t.Fatalf("bad comment %q", e.Comment)
		}
		return
	}
	if e.Comment != "" {
		t.Fatalf("event with a comment: %+v", e)
	}
	if bytes.IndexByte(e.Data, '\r') >= 0 {
		t.Fatalf("data contains CR: %q", e.Data)
	}
	if bytes.ContainsAny([]byte(e.ID), "\r\n\x00") || bytes.ContainsAny([]byte(e.Name), "\r\n") {
		t.Fatalf("bad id or name: %+v", e)
	}
	if !e.HasID && e.ID != "" {
		t.Fatalf("id without HasID: %+v", e)
	}
	if n := len(e.Data) + len(e.ID) + len(e.Name); n > maxEvent {
		t.Fatalf("event of %d bytes exceeds the limit %d", n, maxEvent)
	}
	if e.Retry < 0 {
		t.Fatalf("negative retry: %v", e.Retry)
	}
}

func FuzzReader(f *testing.F) {
	for _, s := range []string{
		"",
		"data: x\n\n",
		"\uFEFFid: 1\r\nevent: e\r\nretry: 10\r\ndata: a\r\ndata: b\r\n\r\n",
		"data: a\rdata: b\r\r: c\r",
		": only\n:\n",
		"data\n\ndata:\ndata\n\n",
		"id: a\x00b\ndata: x\n\nretry: 12x\ndata\n\n",
		"data: 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n\n",
		"data: x\n\ndata: partial\n",
		"\r\n\r\r\n\n\n",
	} {
		f.Add([]byte(s))
	}
	const smallLimit = 32
	f.Fuzz(func(t *testing.T, in []byte) {
		limit := len(in) + 1

		// With no effective size limit, the Reader must agree with the
		// reference parser whichever way the input is chunked.
		want := refParse(in)
		for name, src := range map[string]io.Reader{
			"whole":    bytes.NewReader(in),
			"one byte": iotest.OneByteReader(bytes.NewReader(in)),
			"data+EOF": iotest.DataErrReader(bytes.NewReader(in)),
		} {
			got, err := readAll(t, NewReaderSize(src, len(in)+1), limit)
			if err != io.EOF {
				t.Fatalf("%s: final error %v, want io.EOF", name, err)
			}
			if len(got) != len(want) {
				t.Fatalf("%s: %d events, reference parser %d\ngot  %+v\nwant %+v", name, len(got), len(want), got, want)
			}
			for i := range got {
				checkInvariants(t, got[i], len(in)+1)
				if !equalEvents(got[i], want[i]) {
					t.Fatalf("%s: event %d = %+v, reference parser %+v", name, i, got[i], want[i])
				}
			}
		}

		// With a small limit, the Reader must stop with ErrTooLarge or
		// io.EOF, and whatever it returned before must be a prefix of
		// what the reference parser finds.
		rd := NewReaderSize(iotest.HalfReader(bytes.NewReader(in)), smallLimit)
		got, err := readAll(t, rd, limit)
		if n := cap(rd.lines.buf); n > smallLimit+1 {
			t.Fatalf("small limit: line buffer grew to %d bytes", n)
		}
		if n := cap(rd.data); n > 4*smallLimit {
			t.Fatalf("small limit: data buffer grew to %d bytes", n)
		}
		if err != io.EOF && !errors.Is(err, ErrTooLarge) {
			t.Fatalf("small limit: final error %v", err)
		}
		if len(got) > len(want) {
			t.Fatalf("small limit: %d events, reference parser %d", len(got), len(want))
		}
		for i := range got {
			checkInvariants(t, got[i], smallLimit)
			if !equalEvents(got[i], want[i]) {
				t.Fatalf("small limit: event %d = %+v, reference parser %+v", i, got[i], want[i])
			}
		}
		if err == io.EOF && len(got) != len(want) {
			t.Fatalf("small limit: io.EOF after %d events, reference parser %d", len(got), len(want))
		}
	})
}

func FuzzRoundTrip(f *testing.F) {
	f.Add("1", "message", []byte(`{"jsonrpc":"2.0"}`), int64(0), false, "keep-alive")
	f.Add("", "", []byte(""), int64(0), true, "")
	f.Add(" x", " y", []byte("a\r\nb\rc\nd\n\r"), int64(1500*time.Millisecond), false, "a\nb")
	f.Add("bad\nid", "e", []byte("x"), int64(1), false, "c")
	f.Add("id", "bad\rname", []byte("\r"), int64(-5), false, "\r\n")
	f.Add("nul\x00", "name\x00", []byte("\x00"), int64(1<<63-1), true, ":")
	f.Fuzz(func(t *testing.T, id, name string, payload []byte, retry int64, hasID bool, text string) {
		e := Event{ID: id, HasID: hasID, Name: name, Data: payload, Retry: time.Duration(retry)}
		m := newMemWriter()
		w := NewWriter(m)
		err := w.WriteEvent(e)
		valid := validID(id) && validName(name)
		if !valid {
			if !errors.Is(err, ErrInvalidField) {
				t.Fatalf("WriteEvent(%+v) = %v, want ErrInvalidField", e, err)
			}
			if m.body.Len() != 0 {
				t.Fatalf("rejected event wrote %q", m.body.Bytes())
			}
		} else if err != nil {
			t.Fatalf("WriteEvent(%+v): %v", e, err)
		}
		if err := w.WriteComment(text); err != nil {
			t.Fatalf("WriteComment(%q): %v", text, err)
		}

		rd := NewReader(bytes.NewReader(m.body.Bytes()))
		if valid {
			got, err := rd.Next()
			if err != nil {
				t.Fatalf("Next: %v", err)
			}
			if want := expected(e); !equalEvents(got, want) {
				t.Fatalf("read back %+v, want %+v", got, want)
			}
		}
		got, err := rd.Next()
		if err != nil {
			t.Fatalf("Next for the comment: %v", err)
		}
		if want := (Event{IsComment: true, Comment: sanitizeComment(text)}); !equalEvents(got, want) {
			t.Fatalf("comment read back as %+v, want %+v", got, want)
		}
		if _, err := rd.Next(); err != io.EOF {
			t.Fatalf("Next at the end = %v, want io.EOF", err)
		}
	})
}
