package stdio_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpmount/mcpmount/httptransport"
)

// TestProgressSixteenCalls runs 16 long-running operations at once on the
// one shared child, from eight clients (half at 2026-07-28, half at
// 2025-11-25) that each use the same two progress tokens: every call gets
// exactly its own progress notifications, under its own token.
func TestProgressSixteenCalls(t *testing.T) {
	eachServer(t, func(t *testing.T, srv server) {
		f := newFixture(t, srv, nil)
		const steps = 4
		type key struct {
			client int
			token  string
		}
		var mu sync.Mutex
		got := make(map[key][]float64)
		arrived := make(chan struct{}, 16*steps)
		var wg sync.WaitGroup
		for c := range 8 {
			version := httptransport.Version20260728
			if c%2 == 1 {
				version = httptransport.Version20251125
			}
			cs := connect(t, f.url, version, &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
				mu.Lock()
				k := key{c, fmt.Sprint(req.Params.ProgressToken)}
				got[k] = append(got[k], req.Params.Progress)
				mu.Unlock()
				select { // more than expected: the checks below say so
				case arrived <- struct{}{}:
				default:
				}
			}})
			for _, token := range []string{"a", "b"} {
				wg.Go(func() {
					params := &mcp.CallToolParams{Name: "trigger-long-running-operation", Arguments: map[string]any{"duration": 0.4, "steps": steps}}
					params.SetProgressToken(token)
					res, err := cs.CallTool(context.Background(), params)
					if err != nil {
						t.Errorf("client %d token %s: %v", c, token, err)
						return
					}
					if !strings.Contains(text(res), "completed") {
						t.Errorf("client %d token %s: result %q", c, token, text(res))
					}
				})
			}
		}
		wg.Wait()
		// go-sdk's client runs notification handlers on goroutines of their
		// own: the last one may land just after its call returned.
		complete := func() bool {
			for _, p := range got {
				if len(p) < steps {
					return false
				}
			}
			return len(got) == 16
		}
		timeout := time.After(10 * time.Second)
		mu.Lock()
		for waiting := true; waiting && !complete(); {
			mu.Unlock()
			select {
			case <-arrived:
			case <-timeout: // the checks below say what is missing
				waiting = false
			}
			mu.Lock()
		}
		defer mu.Unlock()
		for c := range 8 {
			for _, token := range []string{"a", "b"} {
				p := got[key{c, token}]
				if len(p) != steps {
					t.Errorf("client %d token %s: %d progress notifications %v, want %d", c, token, len(p), p, steps)
					continue
				}
				// (sorted: the client's handlers run concurrently)
				p = slices.Sorted(slices.Values(p))
				for i, v := range p {
					if v != float64(i+1) {
						t.Errorf("client %d token %s: progress %v, want 1..%d", c, token, p, steps)
						break
					}
				}
			}
		}
		if len(got) != 16 {
			t.Errorf("progress reached %d (client, token) pairs, want 16: %v", len(got), got)
		}
	})
}
