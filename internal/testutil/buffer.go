// Package testutil holds small helpers the module's tests share.
package testutil

import (
	"bytes"
	"sync"
)

// Buffer is a bytes.Buffer that concurrent writers (a logger, a server's
// output) and the test reading it may share.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write implements io.Writer.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns what has been written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
