package httptransport_test

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/internal/testutil"
)

// loggedServer starts an instance with default Options but for a logger
// writing to logs.
func loggedServer(t *testing.T, logs *testutil.Buffer) *httptransport.TestServer {
	t.Helper()
	return httptransport.NewTestServer(t, &httptransport.Options{Logger: slog.New(slog.NewTextHandler(logs, nil))})
}

// TestForeignSessionLogged: mcp-go #636. Two instances keeping sessions
// in their own memory (the default) behind a load balancer answer each
// other's sessions with 404, as they must (neither can know whether the
// other ended the session), and the instance that cannot serve it says
// why in its log, once a minute at most, for 2025-era and 2024-11-05
// sessions alike; a session of its own that is gone (expired, deleted)
// logs nothing.
func TestForeignSessionLogged(t *testing.T) {
	t.Parallel()
	var logsB, logsC testutil.Buffer
	a, b, c := httptransport.NewTestServer(t, nil), loggedServer(t, &logsB), loggedServer(t, &logsC)
	sid := a.Initialize(httptransport.Version20251125)
	for range 2 {
		if resp, body := b.Do("POST", httptransport.SessionHeaders(sid, httptransport.Version20251125), httptransport.ListTools); resp.StatusCode != http.StatusNotFound {
			t.Fatalf("B, A's session: %d %s, want 404", resp.StatusCode, body)
		}
	}
	if n := strings.Count(logsB.String(), "another instance"); n != 1 {
		t.Errorf("B logged %d warnings for two requests naming A's session, want 1:\n%s", n, logsB.String())
	}
	if !strings.Contains(logsB.String(), "Options.Sessions") || !strings.Contains(logsB.String(), sid) {
		t.Errorf("the warning names neither the remedy nor the session:\n%s", logsB.String())
	}

	// C's own session, gone: 404 and nothing said.
	own := c.Initialize(httptransport.Version20251125)
	if resp, _ := c.Do("DELETE", httptransport.SessionHeaders(own, httptransport.Version20251125), ""); resp.StatusCode != http.StatusOK {
		t.Fatalf("DELETE: %d", resp.StatusCode)
	}
	if resp, _ := c.Do("POST", httptransport.SessionHeaders(own, httptransport.Version20251125), httptransport.ListTools); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("C, its deleted session: %d, want 404", resp.StatusCode)
	}
	if logsC.String() != "" {
		t.Errorf("C logged for a session of its own that is gone:\n%s", logsC.String())
	}

	// A 2024-11-05 session is served where its event stream is: a POST to
	// C for A's gets 404, and C says why.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, endpoint := httptransport.OpenLegacy(t, ctx, a.URL, nil)
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	if resp, _ := c.DoURL("POST", c.HTTPServer.URL+endpoint, h, `{"jsonrpc":"2.0","id":1,"method":"ping"}`); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("C, A's 2024-11-05 session: %d, want 404", resp.StatusCode)
	}
	if !strings.Contains(logsC.String(), "another instance") {
		t.Errorf("C said nothing of A's 2024-11-05 session:\n%s", logsC.String())
	}
}
