package soak

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"
)

// Load is the mixed load of a soak: paced clients (so many a second) and
// clients that loop (so many at once).
type Load struct {
	EchoPerSecond    int           // 2026-07-28 tools/call of echo
	AbortPerSecond   int           // 2026-07-28 calls dropped by the client before their answer
	AbandonPerSecond int           // 2025-11-25 sessions opened and left to expire
	Sessions         int           // 2025-11-25 sessions that call, hold a GET stream and DELETE, in a loop
	Listens          int           // 2026-07-28 subscriptions/listen opened, held and closed, in a loop
	LegacyPerSecond  int           // 2024-11-05 sessions with a progress call
	Hold             time.Duration // the longest hold of a GET stream or a listen (each from a quarter of it)
}

// tally counts what each kind of client did, and keeps the first errors.
type tally struct {
	mu     sync.Mutex
	ok     map[string]int
	failed map[string]int
	first  []string
}

func (t *tally) note(kind string, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err == nil {
		t.ok[kind]++
		return
	}
	t.failed[kind]++
	if len(t.first) < 10 {
		t.first = append(t.first, kind+": "+err.Error())
	}
}

// errors is the number of failures.
func (t *tally) errors() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	for _, f := range t.failed {
		n += f
	}
	return n
}

// String lists each kind's successes and failures, and the first errors.
func (t *tally) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var kinds []string
	for k := range t.ok {
		kinds = append(kinds, k)
	}
	for k := range t.failed {
		if t.ok[k] == 0 {
			kinds = append(kinds, k)
		}
	}
	sort.Strings(kinds)
	var b strings.Builder
	for _, k := range kinds {
		fmt.Fprintf(&b, "%s %d ok %d failed; ", k, t.ok[k], t.failed[k])
	}
	for _, e := range t.first {
		fmt.Fprintf(&b, "\n  error: %s", e)
	}
	return b.String()
}

// newClient returns a client of url, and how to close its connections.
func newClient(url string) (*client, func()) {
	transport := &http.Transport{MaxIdleConnsPerHost: 64}
	return &client{url: url, http: &http.Client{Transport: transport}}, transport.CloseIdleConnections
}

// warm has each kind of client that leaves nothing behind do its thing
// once, so that what the server builds once (encoders, connection pools)
// is there before the soak's first sample.
func warm(ctx context.Context, url string) error {
	c, done := newClient(url)
	defer done()
	for _, f := range []func(context.Context) error{
		c.echo2026,
		func(ctx context.Context) error { return c.abort2026(ctx, 50*time.Millisecond) },
		func(ctx context.Context) error { return c.session2025(ctx, 100*time.Millisecond) },
		func(ctx context.Context) error { return c.listen2026(ctx, 100*time.Millisecond) },
		c.legacy2024,
	} {
		if err := f(ctx); err != nil {
			return fmt.Errorf("soak: warming up: %w", err)
		}
	}
	return nil
}

// run drives l against url until ctx ends, and waits for its clients.
func (l Load) run(ctx context.Context, url string, t *tally) {
	c, done := newClient(url)
	defer done()
	hold := func() time.Duration { return l.Hold/4 + rand.N(l.Hold*3/4+1) }
	var wg sync.WaitGroup
	paced := func(kind string, perSecond int, f func(context.Context) error) {
		if perSecond <= 0 {
			return
		}
		wg.Go(func() {
			tick := time.NewTicker(time.Second / time.Duration(perSecond))
			defer tick.Stop()
			var calls sync.WaitGroup
			defer calls.Wait()
			for {
				select {
				case <-ctx.Done():
					return
				case <-tick.C:
					calls.Go(func() {
						if err := f(ctx); err == nil || ctx.Err() == nil {
							t.note(kind, err) // not what the load's end cut short
						}
					})
				}
			}
		})
	}
	looped := func(kind string, n int, f func(context.Context) error) {
		for range n {
			wg.Go(func() {
				for ctx.Err() == nil {
					if err := f(ctx); ctx.Err() == nil {
						t.note(kind, err)
					}
				}
			})
		}
	}
	paced("echo2026", l.EchoPerSecond, c.echo2026)
	paced("abort2026", l.AbortPerSecond, func(ctx context.Context) error {
		return c.abort2026(ctx, 20*time.Millisecond+rand.N(80*time.Millisecond))
	})
	paced("abandon2025", l.AbandonPerSecond, func(ctx context.Context) error { _, err := c.initialize(ctx); return err })
	looped("session2025", l.Sessions, func(ctx context.Context) error { return c.session2025(ctx, hold()) })
	looped("listen2026", l.Listens, func(ctx context.Context) error { return c.listen2026(ctx, hold()) })
	paced("legacy2024", l.LegacyPerSecond, c.legacy2024)
	wg.Wait()
}

// DefaultLoad is the load of a soak at scale 1: some 100 calls a second
// and a few dozen clients at once, which two shared cores serve with room
// to spare.
var DefaultLoad = Load{
	EchoPerSecond:    100,
	AbortPerSecond:   5,
	AbandonPerSecond: 2,
	Sessions:         4,
	Listens:          8,
	LegacyPerSecond:  10,
	Hold:             time.Second,
}

// Scaled returns l with its clients multiplied by f (at least one of each
// kind l has).
func (l Load) Scaled(f float64) Load {
	n := func(v int) int {
		if v == 0 {
			return 0
		}
		return max(1, int(float64(v)*f+0.5))
	}
	l.EchoPerSecond, l.AbortPerSecond, l.AbandonPerSecond = n(l.EchoPerSecond), n(l.AbortPerSecond), n(l.AbandonPerSecond)
	l.LegacyPerSecond, l.Sessions, l.Listens = n(l.LegacyPerSecond), n(l.Sessions), n(l.Listens)
	return l
}
