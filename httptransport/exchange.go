package httptransport

import "net/http"

// exchange is one request being served under the 2025-era or 2024-11-05
// rules: what each step of its handling (messages, calls, batches, held
// streams) passes to the next.
type exchange struct {
	w       http.ResponseWriter // nil for a 2024-11-05 POST, answered on its session's stream
	r       *http.Request
	accept  acceptance
	ls      *liveSession // the session; nil without one (initialize, Options.Stateless)
	version string       // the protocol version the request is served under
}
