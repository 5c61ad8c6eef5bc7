package sse

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// ErrInvalidField is returned, wrapped, by Writer.WriteEvent when an event's
// ID or Name cannot be carried by the wire format: a line break in either
// would end the field early and let the rest of the value inject fields of
// its own, and a NUL byte makes clients ignore the id line.
var ErrInvalidField = errors.New("sse: invalid field value")

// maxRetainedBuffer is the largest encoding buffer a Writer keeps between
// events. A larger buffer, needed for an unusually large event, is released
// after the write so that an idle stream does not pin it.
const maxRetainedBuffer = 64 << 10

// Writer writes events to an http.ResponseWriter, flushing each one so that
// the client receives it at once.
//
// Flushing and write deadlines go through an http.ResponseController, so a
// Writer works through middleware wrappers (such as those of gin or chi)
// that expose the original writer with an Unwrap method.
//
// A Writer must be used by one goroutine at a time; the caller serialises
// calls. It does not set headers: call SetHeaders on the response's header
// before the first event. The status line and headers reach the client with
// the first event, or earlier if Flush is called.
type Writer struct {
	w   http.ResponseWriter
	rc  *http.ResponseController
	buf []byte
}

// NewWriter returns a Writer that writes events to w.
func NewWriter(w http.ResponseWriter) *Writer {
	return &Writer{w: w, rc: http.NewResponseController(w)}
}

// WriteEvent encodes e, writes it with a single Write call and flushes it.
// If e.IsComment is set, it writes e.Comment as a comment line instead, as
// WriteComment does, and ignores the other fields.
//
// It returns an error wrapping ErrInvalidField, without writing anything,
// if e.ID contains CR, LF or NUL or e.Name contains CR or LF. Otherwise it
// returns a wrapped error if the write or the flush fails; a writer that
// cannot flush yields an error wrapping http.ErrNotSupported.
//
// In the common case WriteEvent does not allocate: it reuses an internal
// buffer.
func (w *Writer) WriteEvent(e Event) error {
	if err := w.Buffer(e); err != nil {
		return err
	}
	what := "event"
	if e.IsComment {
		what = "comment"
	}
	if err := w.rc.Flush(); err != nil {
		return fmt.Errorf("sse: flush %s: %w", what, err)
	}
	return nil
}

// Buffer encodes e and writes it as WriteEvent does, without flushing:
// the event reaches the client with the next flush (Flush, or the next
// WriteEvent or WriteComment), or earlier if the response's buffer fills.
// A run of events written with Buffer and ended by WriteEvent goes out in
// one flush instead of one each. It returns the errors WriteEvent returns,
// except those of flushing; a comment (e.IsComment) is written as
// WriteComment would, without the flush.
func (w *Writer) Buffer(e Event) error {
	if e.IsComment {
		w.buf = appendComment(w.buf[:0], e.Comment)
		return w.write("comment")
	}
	if !validID(e.ID) {
		return fmt.Errorf("sse: event id %q: %w", e.ID, ErrInvalidField)
	}
	if !validName(e.Name) {
		return fmt.Errorf("sse: event name %q: %w", e.Name, ErrInvalidField)
	}
	w.buf = appendEvent(w.buf[:0], &e)
	return w.write("event")
}

// WriteComment writes a comment line, ": text", followed by the blank line
// that ends a block, and flushes it. Clients ignore comments, which makes
// them suitable as keep-alives. Every CR or LF in text is replaced by a
// space so that the comment stays on one line. An empty text writes a bare
// ":" line.
func (w *Writer) WriteComment(text string) error {
	return w.WriteEvent(Event{IsComment: true, Comment: text})
}

// Flush sends any buffered response data to the client. It returns a
// wrapped error if the flush fails or the underlying writer cannot flush.
func (w *Writer) Flush() error {
	if err := w.rc.Flush(); err != nil {
		return fmt.Errorf("sse: flush: %w", err)
	}
	return nil
}

// SetWriteDeadline sets the deadline for writes to the response, including
// the writes of later events and flushes; a zero t clears it. It returns nil
// when the underlying writer does not support deadlines, and a wrapped
// error if setting the deadline fails for another reason.
func (w *Writer) SetWriteDeadline(t time.Time) error {
	err := w.rc.SetWriteDeadline(t)
	if err == nil || errors.Is(err, http.ErrNotSupported) {
		return nil
	}
	return fmt.Errorf("sse: set write deadline: %w", err)
}

// write writes the encoded block in w.buf, unflushed.
func (w *Writer) write(what string) error {
	_, err := w.w.Write(w.buf)
	if cap(w.buf) > maxRetainedBuffer {
		w.buf = nil
	}
	if err != nil {
		return fmt.Errorf("sse: write %s: %w", what, err)
	}
	return nil
}

// appendEvent appends the wire encoding of e, including the blank line that
// ends it, to b. e.ID and e.Name must already be valid.
func appendEvent(b []byte, e *Event) []byte {
	if e.HasID || e.ID != "" {
		b = appendField(b, "id", e.ID)
	}
	if e.Name != "" {
		b = appendField(b, "event", e.Name)
	}
	if e.Retry > 0 {
		ms := e.Retry.Milliseconds()
		if ms == 0 {
			ms = 1
		}
		b = append(b, "retry: "...)
		b = strconv.AppendInt(b, ms, 10)
		b = append(b, '\n')
	}
	b = appendData(b, e.Data)
	return append(b, '\n')
}

// appendField appends one "name: value" line to b, or a bare "name:" line
// when value is empty.
func appendField(b []byte, name, value string) []byte {
	b = append(b, name...)
	b = append(b, ':')
	if value != "" {
		b = append(b, ' ')
		b = append(b, value...)
	}
	return append(b, '\n')
}

// appendData appends data as one "data:" line per line of data, splitting
// on "\r\n", "\r" and "\n". Empty data yields one empty data line.
func appendData(b, data []byte) []byte {
	if bytes.IndexByte(data, '\n') < 0 && bytes.IndexByte(data, '\r') < 0 {
		return appendDataLine(b, data)
	}
	for {
		i := indexLineBreak(data)
		if i < 0 {
			return appendDataLine(b, data)
		}
		b = appendDataLine(b, data[:i])
		if data[i] == '\r' && i+1 < len(data) && data[i+1] == '\n' {
			i++
		}
		data = data[i+1:]
	}
}

// appendDataLine appends a single "data:" line carrying line, which must not
// contain a line break.
func appendDataLine(b, line []byte) []byte {
	if len(line) == 0 {
		return append(b, "data:\n"...)
	}
	b = append(b, "data: "...)
	b = append(b, line...)
	return append(b, '\n')
}

// appendComment appends a comment line carrying text, with line breaks
// replaced by spaces, and the blank line that ends the block.
func appendComment(b []byte, text string) []byte {
	if text == "" {
		return append(b, ":\n\n"...)
	}
	b = append(b, ": "...)
	start := len(b)
	b = append(b, text...)
	for i := start; i < len(b); i++ {
		if b[i] == '\r' || b[i] == '\n' {
			b[i] = ' '
		}
	}
	return append(b, "\n\n"...)
}

// validID reports whether id can be written as an id field.
func validID(id string) bool {
	for i := 0; i < len(id); i++ {
		if c := id[i]; c <= '\r' && (c == '\r' || c == '\n' || c == 0) {
			return false
		}
	}
	return true
}

// validName reports whether name can be written as an event field.
func validName(name string) bool {
	for i := 0; i < len(name); i++ {
		if c := name[i]; c <= '\r' && (c == '\r' || c == '\n') {
			return false
		}
	}
	return true
}
