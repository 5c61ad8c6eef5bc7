package httptransport_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// TestRelayAnswerElsewhere: the client's answer to a sampling request a
// tool on A sent, POSTed to B, reaches the tool on A through the store's
// relay, and the call's stream on A ends with the result built from it.
func TestRelayAnswerElsewhere(t *testing.T) {
	t.Parallel()
	a, b := httptransport.Pair(t, httptransport.Options{})
	sid := a.Initialize(httptransport.Version20251125)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	r, q := httptransport.StartSample(t, ctx, a, sid)
	if resp, body := b.Do("POST", httptransport.SessionHeaders(sid, httptransport.Version20251125), httptransport.SamplingAnswer(q.ID)); resp.StatusCode != 202 {
		t.Fatalf("answer POSTed to B: %d %s", resp.StatusCode, body)
	}
	m := r.NextMessage() // fails when the stream ends at the timeout
	if m.ID != jsonrpc.Int64ID(5) || !strings.Contains(string(m.Result), "assistant") {
		t.Errorf("the call on A ended with %s %s %v, want its result holding the answer", m.ID, m.Result, m.Error)
	}
}
