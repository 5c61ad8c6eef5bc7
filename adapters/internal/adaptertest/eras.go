package adaptertest

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/sse"
)

// The eras every test runs: go-sdk's Streamable HTTP client at 2026-07-28
// and at 2025-11-25, and its HTTP+SSE client at 2024-11-05.
var eras = []string{httptransport.Version20260728, httptransport.Version20251125, httptransport.Version20241105}

// CheckEras runs, in a subtest for every era, what every mount must pass
// against the endpoint at base+path: the router's view of the request
// (want) reaches the tool's context; progress events arrive one by one;
// cancelling the client's context cancels the tool's. A last subtest
// checks that the 2024-11-05 endpoint event names path.
func CheckEras(t *testing.T, p *Probe, base, path, want string) {
	url := base + path
	for _, era := range eras {
		t.Run(era, func(t *testing.T) { checkEra(t, p, url, era, want) })
	}
	t.Run("legacy endpoint event", func(t *testing.T) { checkLegacyEndpoint(t, p, url, path) })
}

func checkEra(t *testing.T, p *Probe, url, era, want string) {
	t.Run("context", func(t *testing.T) {
		cs := Connect(t, url, era, nil, nil)
		if got := Call(t, cs, &mcp.CallToolParams{Name: "whoami", Arguments: KeyArgs{}}); got != want {
			t.Errorf("tool saw %q, want %q", got, want)
		}
	})
	t.Run("progress", func(t *testing.T) {
		key := "stepped-" + era
		got := make(chan float64, 2)
		cs := Connect(t, url, era, nil, func(req *mcp.ProgressNotificationClientRequest) {
			if req.Params.ProgressToken != any(key) {
				return
			}
			got <- req.Params.Progress
			if req.Params.Progress == 1 {
				p.Open(key) // lets the tool send #2
			}
		})
		params := &mcp.CallToolParams{Name: "stepped", Arguments: KeyArgs{Key: key}}
		params.SetProgressToken(key)
		if text := Call(t, cs, params); text != "stepped" {
			t.Fatalf("stepped = %q", text)
		}
		for want := 1.0; want <= 2; want++ {
			select {
			case v := <-got:
				if v != want {
					t.Errorf("progress %v, want %v", v, want)
				}
			case <-time.After(wait):
				t.Fatalf("progress #%v never arrived", want)
			}
		}
	})
	t.Run("cancel", func(t *testing.T) {
		key := "block-" + era
		cs := Connect(t, url, era, nil, nil)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		errc := make(chan error, 1)
		go func() {
			_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "block", Arguments: KeyArgs{Key: key}})
			errc <- err
		}()
		WaitFor(t, p.Started, key)
		cancel()
		WaitFor(t, p.Cancelled, key)
		if err := <-errc; !errors.Is(err, context.Canceled) {
			t.Errorf("CallTool error = %v, want context.Canceled", err)
		}
	})
}

// checkLegacyEndpoint opens a 2024-11-05 event stream at url and checks
// that its first event names path, with a session id, for the POSTs, and
// that the transport took the held stream's connection over through the
// router and its middleware.
func checkLegacyEndpoint(t *testing.T, p *Probe, url, path string) {
	t.Helper()
	before := p.Hijacked.Load()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || ct != "text/event-stream" {
		t.Fatalf("GET: %s, Content-Type %q", resp.Status, ct)
	}
	rd := sse.NewReader(resp.Body)
	ev, err := rd.Next()
	for err == nil && ev.IsComment {
		ev, err = rd.Next()
	}
	if err != nil {
		t.Fatal(err)
	}
	if ev.Name != "endpoint" || !strings.HasPrefix(string(ev.Data), path+"?sessionId=") {
		t.Errorf("first event %q: %q, want endpoint: %s?sessionId=...", ev.Name, ev.Data, path)
	}
	for p.Hijacked.Load() == before {
		if ctx.Err() != nil {
			t.Fatal("the held stream was not taken over from net/http")
		}
		time.Sleep(2 * time.Millisecond)
	}
}
