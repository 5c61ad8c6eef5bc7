package sse

import "time"

// Event is one Server-Sent Event.
//
// The zero value is an event with no id, the default type and empty data.
type Event struct {
	// ID is the value of the "id:" field. An empty ID means that no id
	// line is written, unless HasID is set.
	ID string

	// HasID reports that an "id:" line is present. The Writer writes an id
	// line when HasID is true or ID is not empty, so HasID is only needed to
	// send an empty id, which resets the client's last event ID. The Reader
	// sets HasID when the event's block held a valid id line.
	HasID bool

	// Name is the value of the "event:" field. An empty Name means that no
	// event line is written; a client then dispatches the event with the
	// type "message". The Reader reports the name exactly as received and
	// leaves it empty when the block had no event line.
	Name string

	// Data is the payload carried by "data:" lines. It may contain line
	// breaks: the Writer writes one data line per line of Data (see the
	// package documentation for how "\r" is treated). Empty or nil Data
	// still produces one empty "data:" line, so that the event is
	// dispatched by clients.
	Data []byte

	// Retry is the reconnection time sent in the "retry:" field. The Writer
	// writes it in whole milliseconds when it is positive, truncating
	// fractions and rounding a positive value below one millisecond up to
	// one. The Reader sets it when the event's block held a valid retry line
	// with a value above zero.
	Retry time.Duration

	// IsComment reports that the event is a comment line rather than an
	// event. The Reader returns each comment line as its own Event with only
	// IsComment and Comment set. When IsComment is set, Writer.WriteEvent
	// writes Comment as a comment, exactly like Writer.WriteComment, and
	// ignores every other field.
	IsComment bool

	// Comment is the text of a comment line: what follows the colon, with
	// one leading space removed. It is meaningful only when IsComment is
	// set.
	Comment string
}
