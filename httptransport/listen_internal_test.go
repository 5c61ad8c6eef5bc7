package httptransport

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpmount/mcpmount/internal/testutil"
)

// lateEngine starts the handler's Shutdown while a listen is being
// admitted (from Describe, before the listen is registered), and lets the
// listen go on once Shutdown has ended the listens it knew of.
type lateEngine struct {
	*TestEngine
	h        *Handler
	once     sync.Once
	shutdown chan error
}

func (e *lateEngine) Describe(ctx context.Context) *Description {
	e.once.Do(func() {
		sctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		go func() {
			defer cancel()
			e.shutdown <- e.h.Shutdown(sctx)
		}()
		// Shutdown begins, and ends the listens it knows of (in the
		// test's synctest bubble: everything else waits then).
		synctest.Wait()
	})
	return e.TestEngine.Describe(ctx)
}

// TestListenDuringShutdown: a listen admitted just as Shutdown begins ends
// with its final result as the others do, and Shutdown does not wait for it
// until its deadline.
func TestListenDuringShutdown(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		mn := &testutil.MemNet{}
		for _, hold := range []bool{false, true} {
			te := NewTestEngine()
			te.Hold = hold
			e := &lateEngine{TestEngine: te, shutdown: make(chan error, 1)}
			e.h = New(e, nil)
			srv := httptest.NewUnstartedServer(e.h)
			mn.Serve(srv, false)
			start := time.Now()
			req, _ := http.NewRequest("POST", srv.URL+"/mcp", strings.NewReader(ListenBody))
			req.Header = ModernHeaders("subscriptions/listen")
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if !strings.Contains(string(body), `"resultType":"complete"`) {
				t.Errorf("hold %v: the listen admitted during Shutdown ended with %d %q, want its final result", hold, resp.StatusCode, body)
			}
			if err := <-e.shutdown; err != nil || time.Since(start) > 2*time.Second {
				t.Errorf("hold %v: Shutdown returned %v after %v", hold, err, time.Since(start))
			}
			srv.Close()
		}
	})
}
