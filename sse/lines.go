package sse

import (
	"bytes"
	"fmt"
	"io"
)

// minLineBuffer is the initial size of a lineReader's buffer.
const minLineBuffer = 4 << 10

// maxEmptyReads is how many consecutive reads returning no data and no error
// a lineReader tolerates before giving up with io.ErrNoProgress.
const maxEmptyReads = 100

// indexLineBreak returns the index of the first CR or LF in b, or -1.
//
// It searches windows of doubling size so that its cost stays proportional
// to the returned index even when one of the two bytes is rare: searching
// all of b for LF before looking for CR would make splitting a run of CRs
// quadratic.
func indexLineBreak(b []byte) int {
	for off, n := 0, 64; off < len(b); off, n = off+n, 2*n {
		w := b[off:min(off+n, len(b))]
		lf := bytes.IndexByte(w, '\n')
		if lf >= 0 {
			w = w[:lf]
		}
		if cr := bytes.IndexByte(w, '\r'); cr >= 0 {
			return off + cr
		}
		if lf >= 0 {
			return off + lf
		}
	}
	return -1
}

// lineReader splits a byte stream into lines ended by "\r\n", "\r" or "\n",
// holding at most max bytes of an unfinished line.
//
// A line ended by a lone CR is returned as soon as the CR arrives; whether an
// LF follows is decided when the next line is read, so a stream using CR
// line endings is not delayed by one byte.
type lineReader struct {
	src     io.Reader
	buf     []byte
	r, w    int   // buf[r:w] holds unread bytes
	scanned int   // bytes of buf[r:w] known to hold no line break
	max     int   // longest line accepted, excluding its terminator
	skipLF  bool  // the previous line ended with CR: drop a leading LF
	err     error // error returned by src, reported once buf is drained
}

// readLine returns the next line without its terminator. The line is valid
// until the next call. An unterminated line at the end of the stream is
// discarded and the source's error (usually io.EOF) is returned. A line
// longer than max yields an error wrapping ErrTooLarge.
func (l *lineReader) readLine() ([]byte, error) {
	for {
		if l.skipLF && l.r < l.w {
			if l.buf[l.r] == '\n' {
				l.r++
			}
			l.skipLF = false
		}
		if i := indexLineBreak(l.buf[l.r+l.scanned : l.w]); i >= 0 {
			end := l.r + l.scanned + i
			line := l.buf[l.r:end]
			l.skipLF = l.buf[end] == '\r'
			l.r = end + 1
			l.scanned = 0
			if len(line) > l.max {
				return nil, fmt.Errorf("sse: line of %d bytes exceeds %d: %w", len(line), l.max, ErrTooLarge)
			}
			return line, nil
		}
		l.scanned = l.w - l.r
		if l.scanned > l.max {
			return nil, fmt.Errorf("sse: line exceeds %d bytes: %w", l.max, ErrTooLarge)
		}
		if l.err != nil {
			return nil, l.err
		}
		l.fill()
	}
}

// fill reads more data into the buffer, first moving unread bytes to its
// start and growing it if it is full. It records the source's error in
// l.err.
func (l *lineReader) fill() {
	if l.r > 0 {
		l.w = copy(l.buf, l.buf[l.r:l.w])
		l.r = 0
	}
	if l.w == len(l.buf) {
		// The buffer must be able to hold a line of l.max bytes plus
		// one more byte, either its terminator or proof that it is
		// too long.
		n := max(2*len(l.buf), minLineBuffer)
		n = min(n, l.max+1)
		grown := make([]byte, n)
		copy(grown, l.buf[:l.w])
		l.buf = grown
	}
	for range maxEmptyReads {
		n, err := l.src.Read(l.buf[l.w:])
		if n < 0 || n > len(l.buf)-l.w {
			l.err = fmt.Errorf("sse: source returned invalid count %d", n)
			return
		}
		l.w += n
		if err != nil {
			l.err = err
			return
		}
		if n > 0 {
			return
		}
	}
	l.err = io.ErrNoProgress
}
