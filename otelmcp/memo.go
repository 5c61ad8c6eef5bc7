package otelmcp

import (
	"sync"
	"sync/atomic"
)

// memo keeps values worth making once per key (a span name, the attribute
// set of a metric series), up to max keys: past them, store keeps
// nothing and callers make the value each time, so that keys a client
// chooses cannot grow it without bound. Safe for concurrent use; a load
// takes no lock and does not allocate.
type memo[K comparable, V any] struct {
	max int64
	n   atomic.Int64 // keys kept, or reserved by a store under way
	m   sync.Map     // K -> V
}

// newMemo returns an empty memo of at most max keys.
func newMemo[K comparable, V any](max int64) *memo[K, V] {
	return &memo[K, V]{max: max}
}

// load returns the value kept for k, if any.
func (c *memo[K, V]) load(k K) (V, bool) {
	v, ok := c.m.Load(k)
	if !ok {
		var zero V
		return zero, false
	}
	return v.(V), true
}

// has reports whether a value is kept for k.
func (c *memo[K, V]) has(k K) bool {
	_, ok := c.m.Load(k)
	return ok
}

// store keeps v for k, unless k is kept already or the memo is full.
func (c *memo[K, V]) store(k K, v V) {
	if c.n.Add(1) > c.max {
		c.n.Add(-1)
		return
	}
	if _, loaded := c.m.LoadOrStore(k, v); loaded {
		c.n.Add(-1)
	}
}

// len returns the number of keys kept.
func (c *memo[K, V]) len() int64 { return min(c.n.Load(), c.max) }
