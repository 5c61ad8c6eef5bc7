package output

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/mcpmount/mcpmount/jsonrpc"
)

// TestFinishedStreamLetsGo: a call answered over SSE, the stream opened by
// its answer, leaves no keep-alive timer armed: the timer would keep the
// ended stream, and what it holds, in memory until it fired.
func TestFinishedStreamLetsGo(t *testing.T) {
	// The handler's defaults: httptransport's Options.HeaderFlushDelay and
	// Options.KeepAlive.
	cfg := &Config{HeaderFlushDelay: time.Second, KeepAlive: 15 * time.Second}
	status := func(*jsonrpc.Error) int { return http.StatusOK }
	for _, open := range []bool{false, true} {
		st := NewStream(cfg, httptest.NewRecorder(), Accept{SSE: true}, Role{Status: status})
		st.StartTimer(nil)
		if open {
			st.mu.Lock()
			st.openLocked()
			st.mu.Unlock()
		}
		st.Finish(jsonrpc.NewResponse(jsonrpc.Int64ID(1), []byte(`{}`)))
		if st.clock.timer.Stop() {
			t.Errorf("stream open before its answer %v: keep-alive timer still armed after the answer", open)
		}
	}
}
