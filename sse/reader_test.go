package sse

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// data returns a data-only event as the Reader reports it.
func data(s string) Event { return Event{Data: []byte(s)} }

// comment returns a comment as the Reader reports it.
func comment(s string) Event { return Event{IsComment: true, Comment: s} }

func TestReader(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		max     int // 0 selects the default
		want    []Event
		wantErr error // returned after want; io.EOF or ErrTooLarge
	}{
		{name: "empty stream", in: "", wantErr: io.EOF},
		{name: "LF", in: "data: a\ndata: b\n\n", want: []Event{data("a\nb")}, wantErr: io.EOF},
		{name: "CRLF", in: "id: 1\r\ndata: a\r\ndata: b\r\n\r\n", want: []Event{{ID: "1", HasID: true, Data: []byte("a\nb")}}, wantErr: io.EOF},
		{name: "CR", in: "data: a\rdata: b\r\rdata: c\r\r", want: []Event{data("a\nb"), data("c")}, wantErr: io.EOF},
		{name: "mixed endings", in: "data: a\r\n\rdata: b\n\r\ndata: c\r\n\n", want: []Event{data("a"), data("b"), data("c")}, wantErr: io.EOF},
		{name: "LF CR is two line breaks", in: "data: a\n\rdata: b\n\n", want: []Event{data("a"), data("b")}, wantErr: io.EOF},
		{name: "BOM at start", in: "\uFEFFdata: x\n\n", want: []Event{data("x")}, wantErr: io.EOF},
		{name: "BOM only skipped once", in: "\uFEFF\uFEFFdata: x\n\ndata: y\n\n", want: []Event{data("y")}, wantErr: io.EOF},
		{name: "BOM later is part of the field name", in: "data: x\n\n\uFEFFdata: y\n\n", want: []Event{data("x")}, wantErr: io.EOF},
		{name: "data without colon", in: "data\n\ndata\ndata\n\n", want: []Event{data(""), data("\n")}, wantErr: io.EOF},
		{name: "no space after colon", in: "data:x\nevent:e\nid:i\n\n", want: []Event{{ID: "i", HasID: true, Name: "e", Data: []byte("x")}}, wantErr: io.EOF},
		{name: "only one space removed", in: "data:  x \n\n", want: []Event{data(" x ")}, wantErr: io.EOF},
		{name: "tab is not removed", in: "data:\tx\n\n", want: []Event{data("\tx")}, wantErr: io.EOF},
		{name: "value keeps colons", in: "data: a: b\n\n", want: []Event{data("a: b")}, wantErr: io.EOF},
		{name: "unknown field", in: "foo: bar\nDATA: no\ndata : no\ndata: x\n\n", want: []Event{data("x")}, wantErr: io.EOF},
		{name: "empty data line dispatches", in: "data:\n\n", want: []Event{data("")}, wantErr: io.EOF},
		{name: "block without data is not dispatched", in: "event: e\nid: 1\nretry: 5\n\ndata: x\n\n", want: []Event{data("x")}, wantErr: io.EOF},
		{name: "last field wins", in: "event: a\nevent: b\nid: 1\nid: 2\ndata: x\n\n", want: []Event{{ID: "2", HasID: true, Name: "b", Data: []byte("x")}}, wantErr: io.EOF},
		{name: "empty id", in: "id\ndata: x\n\nid:\ndata: y\n\n", want: []Event{{HasID: true, Data: []byte("x")}, {HasID: true, Data: []byte("y")}}, wantErr: io.EOF},
		{name: "id with NUL ignored", in: "id: 1\nid: a\x00b\ndata: x\n\nid: \x00\ndata: y\n\n", want: []Event{{ID: "1", HasID: true, Data: []byte("x")}, data("y")}, wantErr: io.EOF},
		{name: "retry", in: "retry: 1500\ndata: x\n\nretry:250\ndata: y\n\n", want: []Event{{Retry: 1500 * time.Millisecond, Data: []byte("x")}, {Retry: 250 * time.Millisecond, Data: []byte("y")}}, wantErr: io.EOF},
		{name: "invalid retry ignored", in: "retry: 15x\nretry: -1\nretry:\nretry: 1.5\nretry:  5\nretry: 99999999999999999999\ndata: x\n\n", want: []Event{data("x")}, wantErr: io.EOF},
		{name: "fields do not leak between events", in: "id: 1\nevent: e\nretry: 9\ndata: x\n\ndata: y\n\n", want: []Event{{ID: "1", HasID: true, Name: "e", Retry: 9 * time.Millisecond, Data: []byte("x")}, data("y")}, wantErr: io.EOF},
		{name: "comment-only stream", in: ": hello\n:\n:  two\r\n:x\r", want: []Event{comment("hello"), comment(""), comment(" two"), comment("x")}, wantErr: io.EOF},
		{name: "comment inside event", in: "data: a\n: ping\ndata: b\n\n", want: []Event{comment("ping"), data("a\nb")}, wantErr: io.EOF},
		{name: "blank lines between events", in: "\n\n\r\ndata: x\n\n\n\n", want: []Event{data("x")}, wantErr: io.EOF},
		{name: "raw bytes kept", in: "data: \xff\x00\xfe\n\n", want: []Event{data("\xff\x00\xfe")}, wantErr: io.EOF},
		{name: "partial event at EOF dropped", in: "data: a\n\ndata: b\n", want: []Event{data("a")}, wantErr: io.EOF},
		{name: "unterminated line at EOF dropped", in: "data: a\n\ndata: b", want: []Event{data("a")}, wantErr: io.EOF},
		{name: "unterminated comment at EOF dropped", in: ": a\n: b", want: []Event{comment("a")}, wantErr: io.EOF},
		{name: "line at the limit", in: "data: 0123456789\n\n", max: 16, want: []Event{data("0123456789")}, wantErr: io.EOF},
		{name: "line too long", in: "data: x\n\ndata: 0123456789a\n\n", max: 16, want: []Event{data("x")}, wantErr: ErrTooLarge},
		{name: "comment too long", in: ": 0123456789abcdefghij\n", max: 16, wantErr: ErrTooLarge},
		{name: "unterminated line too long", in: "data: " + strings.Repeat("x", 100), max: 16, wantErr: ErrTooLarge},
		{name: "event at the limit", in: "data: 01234567\ndata: 0123456\n\n", max: 16, want: []Event{data("01234567\n0123456")}, wantErr: io.EOF},
		{name: "event too large", in: "data: 01234567\ndata: 01234567\n\n", max: 16, wantErr: ErrTooLarge},
		{name: "id and name count", in: "id: 012345\nevent: 012345\ndata: 01234\n\n", max: 16, wantErr: ErrTooLarge},
		{name: "many empty data lines too large", in: strings.Repeat("data\n", 18) + "\n", max: 16, wantErr: ErrTooLarge},
		{name: "long stream of small events", in: strings.Repeat("data: 0123456789\n\n", 3), max: 16, want: []Event{data("0123456789"), data("0123456789"), data("0123456789")}, wantErr: io.EOF},
	}
	readers := map[string]func(string) io.Reader{
		"whole":    func(s string) io.Reader { return strings.NewReader(s) },
		"one byte": func(s string) io.Reader { return iotest.OneByteReader(strings.NewReader(s)) },
		"half":     func(s string) io.Reader { return iotest.HalfReader(strings.NewReader(s)) },
		"data+EOF": func(s string) io.Reader { return iotest.DataErrReader(strings.NewReader(s)) },
	}
	for _, tt := range tests {
		for rname, mk := range readers {
			t.Run(tt.name+"/"+rname, func(t *testing.T) {
				rd := NewReaderSize(mk(tt.in), tt.max)
				for i, want := range tt.want {
					got, err := rd.Next()
					if err != nil {
						t.Fatalf("Next %d: %v", i, err)
					}
					if !equalEvents(got, want) {
						t.Errorf("event %d = %+v, want %+v", i, got, want)
					}
				}
				_, err := rd.Next()
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("final Next = %v, want %v", err, tt.wantErr)
				}
				if tt.wantErr == io.EOF && err != io.EOF {
					t.Errorf("final Next = %#v, want io.EOF itself", err)
				}
				if _, again := rd.Next(); again != err {
					t.Errorf("Next after error = %v, want the same %v", again, err)
				}
			})
		}
	}
}

func TestReaderStreamState(t *testing.T) {
	rd := NewReader(strings.NewReader("id: 7\nretry: 300\n\ndata: x\n\nid: 8\ndata: y\n\nid: 9\nretry: 5\ndata: partial\n"))
	if id := rd.LastEventID(); id != "" {
		t.Errorf("LastEventID before any event = %q", id)
	}
	e, err := rd.Next()
	if err != nil || !equalEvents(e, data("x")) {
		t.Fatalf("Next = %+v, %v; want data x", e, err)
	}
	if id, retry := rd.LastEventID(), rd.Retry(); id != "7" || retry != 300*time.Millisecond {
		t.Errorf("after a dataless block: LastEventID = %q, Retry = %v; want 7, 300ms", id, retry)
	}
	e, err = rd.Next()
	if err != nil || !equalEvents(e, Event{ID: "8", HasID: true, Data: []byte("y")}) {
		t.Fatalf("Next = %+v, %v; want id 8, data y", e, err)
	}
	if _, err := rd.Next(); err != io.EOF {
		t.Fatalf("Next = %v, want io.EOF", err)
	}
	if id, retry := rd.LastEventID(), rd.Retry(); id != "8" || retry != 300*time.Millisecond {
		t.Errorf("after a partial block: LastEventID = %q, Retry = %v; want 8, 300ms", id, retry)
	}
}

// TestReaderCRNotDelayed checks that an event whose last line ends with a
// lone CR is returned without waiting for the byte after the CR, which
// might be an LF to skip.
func TestReaderCRNotDelayed(t *testing.T) {
	pr, pw := io.Pipe()
	defer pr.Close()
	rd := NewReader(pr)
	writeErr := make(chan error, 1)
	go func() {
		_, err := pw.Write([]byte("data: x\r\r"))
		writeErr <- err
	}()
	type result struct {
		e   Event
		err error
	}
	next := make(chan result, 1)
	go func() {
		e, err := rd.Next()
		next <- result{e, err}
	}()
	select {
	case r := <-next:
		if r.err != nil || !equalEvents(r.e, data("x")) {
			t.Fatalf("Next = %+v, %v; want data x", r.e, r.err)
		}
	case <-time.After(handshakeTimeout):
		t.Fatal("Next waited for more input after a CR-terminated event")
	}
	if err := <-writeErr; err != nil {
		t.Fatal(err)
	}
	// The LF that follows must be taken as the end of the CR line break.
	go func() {
		_, err := pw.Write([]byte("\ndata: y\n\n"))
		pw.Close()
		writeErr <- err
	}()
	e, err := rd.Next()
	if err != nil || !equalEvents(e, data("y")) {
		t.Fatalf("Next = %+v, %v; want data y", e, err)
	}
	if err := <-writeErr; err != nil {
		t.Fatal(err)
	}
	if _, err := rd.Next(); err != io.EOF {
		t.Fatalf("Next = %v, want io.EOF", err)
	}
}

// zeroReader returns no data and no error, forever.
type zeroReader struct{}

func (zeroReader) Read([]byte) (int, error) { return 0, nil }

func TestReaderNoProgress(t *testing.T) {
	_, err := NewReader(zeroReader{}).Next()
	if !errors.Is(err, io.ErrNoProgress) {
		t.Fatalf("Next = %v, want an error wrapping io.ErrNoProgress", err)
	}
}

func TestReaderSourceError(t *testing.T) {
	boom := errors.New("boom")
	rd := NewReader(io.MultiReader(strings.NewReader("data: x\n\ndata: y\n"), iotest.ErrReader(boom)))
	if e, err := rd.Next(); err != nil || !equalEvents(e, data("x")) {
		t.Fatalf("Next = %+v, %v; want data x", e, err)
	}
	if _, err := rd.Next(); !errors.Is(err, boom) {
		t.Fatalf("Next = %v, want an error wrapping %v", err, boom)
	}
}

func TestReaderDataIsOwned(t *testing.T) {
	rd := NewReader(strings.NewReader("data: first\n\ndata: second\n\n"))
	a, err := rd.Next()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rd.Next(); err != nil {
		t.Fatal(err)
	}
	if string(a.Data) != "first" {
		t.Errorf("first event's data changed to %q after reading the next event", a.Data)
	}
}
