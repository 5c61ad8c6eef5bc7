package httptransport

import (
	"net/http/httptest"
	"testing"

	"github.com/mcpmount/mcpmount/jsonrpc"
)

// TestFinishedStreamLetsGo: a call answered over SSE, the stream opened by
// its answer, leaves no keep-alive timer armed: the timer would keep the
// ended stream, and what it holds, in memory until it fired.
func TestFinishedStreamLetsGo(t *testing.T) {
	h := New(newTestEngine(), nil)
	for _, open := range []bool{false, true} {
		st := h.newStream(httptest.NewRecorder(), acceptance{sse: true}, false)
		st.startTimer()
		if open {
			st.mu.Lock()
			st.openLocked()
			st.mu.Unlock()
		}
		st.finish(jsonrpc.NewResponse(jsonrpc.Int64ID(1), []byte(`{}`)))
		if st.timer.Stop() {
			t.Errorf("stream open before its answer %v: keep-alive timer still armed after the answer", open)
		}
	}
}
