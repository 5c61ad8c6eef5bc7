package testutil

import (
	"encoding/json"
	"strings"
	"sync"
)

// CountingLog is a log sink that counts every byte written to it and keeps
// only the first Keep bytes, so a test can measure a flood of logs without
// holding it. Concurrent writers may share it.
type CountingLog struct {
	// Keep is how many bytes, from the start, are kept for Head and
	// Records. Zero keeps none.
	Keep int

	mu   sync.Mutex
	n    int
	head []byte
}

// Write implements io.Writer.
func (c *CountingLog) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n += len(p)
	if room := c.Keep - len(c.head); room > 0 {
		c.head = append(c.head, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// Len returns how many bytes have been written.
func (c *CountingLog) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// Head returns the bytes kept.
func (c *CountingLog) Head() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return string(c.head)
}

// Records decodes the kept bytes as the lines of a slog.JSONHandler,
// leaving out a line the Keep bound cut.
func (c *CountingLog) Records() []map[string]any {
	var out []map[string]any
	for line := range strings.SplitSeq(c.Head(), "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) == nil {
			out = append(out, rec)
		}
	}
	return out
}
