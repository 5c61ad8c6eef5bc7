package httptransport

import (
	"net/http"
	"testing"

	"github.com/mcpmount/mcpmount/internal/testutil"
)

// Tests whose outcome hangs on time (idle timeouts, write deadlines, the
// header flush delay) run in a testing/synctest bubble, where time moves
// only when every goroutine of the test waits: a loaded machine's delays
// cannot reorder what the test's clock says happens in order. Their
// servers and clients talk over a testutil.MemNet, as a real socket's
// wait would stop the bubble's clock.

// StartBubbleServer is StartTestServer on mn, for a test in a synctest
// bubble.
func StartBubbleServer(t *testing.T, mn *testutil.MemNet, e *TestEngine, opts *Options, wrap func(http.Handler) http.Handler, h2 bool) *TestServer {
	t.Helper()
	return startTestServer(t, mn, e, opts, wrap, h2)
}
