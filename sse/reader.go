package sse

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"time"
)

// ErrTooLarge is returned, wrapped, by Reader.Next when a line or an event
// exceeds the reader's size limit.
var ErrTooLarge = errors.New("sse: line or event too large")

// DefaultMaxEventSize is the size limit of a Reader made by NewReader.
const DefaultMaxEventSize = 8 << 20

// utf8BOM is the byte order mark that may open a stream.
const utf8BOM = "\uFEFF"

// Reader parses a Server-Sent Events byte stream into events. It is meant
// for clients and tests.
//
// Field parsing follows the WHATWG HTML rules: lines end with "\r\n", "\r"
// or "\n"; a leading byte order mark is skipped; a single space after a
// field's colon is removed; a line without a colon is a field with an empty
// value; unknown fields are ignored; a "retry" value that is not all ASCII
// digits is ignored, as is an "id" value containing NUL. A block without any
// data line is not dispatched as an event, but its id and retry fields still
// update LastEventID and Retry.
//
// Unlike a browser, a Reader is strict about size: a line longer than the
// limit, or an event whose id, name and data together exceed it, makes Next
// return an error wrapping ErrTooLarge. Bytes are not decoded as UTF-8.
//
// A Reader must be used by one goroutine at a time.
type Reader struct {
	lines    lineReader
	maxEvent int
	started  bool  // the first line, which may carry a BOM, has been read
	err      error // sticky error returned by every later Next

	// The block being parsed.
	data     []byte // data lines, each followed by '\n'
	hasData  bool
	name     string
	id       string
	hasID    bool
	retry    time.Duration
	hasRetry bool

	// Stream state, updated when a block ends.
	lastID    string
	reconnect time.Duration
}

// NewReader returns a Reader that parses r with a size limit of
// DefaultMaxEventSize.
func NewReader(r io.Reader) *Reader {
	return NewReaderSize(r, DefaultMaxEventSize)
}

// NewReaderSize returns a Reader that parses r and accepts neither lines
// (without their terminator) nor events (id, name and data together, data
// lines counted with the "\n" that joins them) larger than maxEvent bytes.
// A maxEvent below one selects DefaultMaxEventSize.
func NewReaderSize(r io.Reader, maxEvent int) *Reader {
	if maxEvent < 1 {
		maxEvent = DefaultMaxEventSize
	}
	maxEvent = min(maxEvent, math.MaxInt-1) // the line buffer holds maxEvent+1 bytes
	return &Reader{
		lines:    lineReader{src: r, max: maxEvent},
		maxEvent: maxEvent,
	}
}

// Next returns the next event or comment.
//
// Each comment line is returned as an Event with only IsComment and Comment
// set; Comment holds the text after the colon with one leading space
// removed. A comment inside a block does not disturb the event being
// parsed.
//
// At the end of the stream Next returns io.EOF, discarding any partial
// event, as the specification requires. A line or event over the size limit
// yields an error wrapping ErrTooLarge, and a failing source yields its
// error wrapped. Once Next has returned an error it returns the same error
// on every later call.
func (r *Reader) Next() (Event, error) {
	if r.err != nil {
		return Event{}, r.err
	}
	e, err := r.next()
	if err != nil {
		r.err = err
		r.resetBlock()
	}
	return e, err
}

// LastEventID returns the last event ID of the stream: the value of the
// last valid id line in a completed block, whether or not that block was
// dispatched as an event. It is the value a client sends as Last-Event-ID
// when it reconnects.
func (r *Reader) LastEventID() string {
	return r.lastID
}

// Retry returns the reconnection time last set by a valid retry line in a
// completed block, or zero if there was none.
func (r *Reader) Retry() time.Duration {
	return r.reconnect
}

// next implements Next without the sticky error.
func (r *Reader) next() (Event, error) {
	for {
		line, err := r.lines.readLine()
		if err != nil {
			if err == io.EOF || errors.Is(err, ErrTooLarge) {
				return Event{}, err
			}
			return Event{}, fmt.Errorf("sse: read: %w", err)
		}
		if !r.started {
			r.started = true
			if len(line) >= len(utf8BOM) && string(line[:len(utf8BOM)]) == utf8BOM {
				line = line[len(utf8BOM):]
			}
		}
		if len(line) == 0 {
			if e, ok := r.dispatch(); ok {
				return e, nil
			}
			continue
		}
		if line[0] == ':' {
			text := line[1:]
			if len(text) > 0 && text[0] == ' ' {
				text = text[1:]
			}
			return Event{IsComment: true, Comment: string(text)}, nil
		}
		if err := r.field(line); err != nil {
			return Event{}, err
		}
	}
}

// field processes one field line of the current block.
func (r *Reader) field(line []byte) error {
	name, value := line, []byte(nil)
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		name, value = line[:i], line[i+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	switch string(name) {
	case "event":
		if err := r.checkSize(r.dataLen() + len(value) + len(r.id)); err != nil {
			return err
		}
		if string(value) == "message" {
			r.name = "message" // the usual name, without allocating
		} else {
			r.name = string(value)
		}
	case "data":
		if err := r.checkSize(len(r.data) + len(value) + len(r.name) + len(r.id)); err != nil {
			return err
		}
		r.data = append(r.data, value...)
		r.data = append(r.data, '\n')
		r.hasData = true
	case "id":
		if bytes.IndexByte(value, 0) >= 0 {
			return nil
		}
		if err := r.checkSize(r.dataLen() + len(r.name) + len(value)); err != nil {
			return err
		}
		r.id = string(value)
		r.hasID = true
	case "retry":
		if d, ok := parseRetry(value); ok {
			r.retry = d
			r.hasRetry = true
		}
	}
	return nil
}

// dataLen returns the length of the current block's data as it will be
// dispatched: the data buffer without its trailing '\n'.
func (r *Reader) dataLen() int {
	return max(len(r.data)-1, 0)
}

// checkSize returns an error wrapping ErrTooLarge if an event of size bytes
// exceeds the limit. A data line's size counts the bytes already in the data
// buffer, whose trailing '\n' becomes the one joining the new line.
func (r *Reader) checkSize(size int) error {
	if size > r.maxEvent {
		return fmt.Errorf("sse: event exceeds %d bytes: %w", r.maxEvent, ErrTooLarge)
	}
	return nil
}

// dispatch ends the current block. It reports the event and true if the
// block held data, and updates the stream state either way.
func (r *Reader) dispatch() (Event, bool) {
	defer r.resetBlock()
	if r.hasID {
		r.lastID = r.id
	}
	if r.hasRetry {
		r.reconnect = r.retry
	}
	if !r.hasData {
		return Event{}, false
	}
	data := r.data[:len(r.data)-1]
	e := Event{
		ID:    r.id,
		HasID: r.hasID,
		Name:  r.name,
		Data:  append(make([]byte, 0, len(data)), data...),
		Retry: r.retry,
	}
	return e, true
}

// resetBlock forgets the block being parsed, keeping the data buffer's
// memory for the next block unless it has grown large.
func (r *Reader) resetBlock() {
	if cap(r.data) > maxRetainedBuffer {
		r.data = nil
	}
	r.data = r.data[:0]
	r.hasData = false
	r.name = ""
	r.id = ""
	r.hasID = false
	r.retry = 0
	r.hasRetry = false
}

// parseRetry parses a retry value: one or more ASCII digits giving a number
// of milliseconds. It reports false for anything else, including values too
// large for a time.Duration.
func parseRetry(v []byte) (time.Duration, bool) {
	if len(v) == 0 {
		return 0, false
	}
	const limit = math.MaxInt64 / int64(time.Millisecond)
	var ms int64
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		ms = ms*10 + int64(c-'0')
		if ms > limit {
			return 0, false
		}
	}
	return time.Duration(ms) * time.Millisecond, true
}
