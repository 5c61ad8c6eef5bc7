package auth

import (
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/golang-jwt/jwt/v5"

	"github.com/mcpmount/mcpmount/internal/testutil"
)

// TestHugeKidLogsBounded: issue 19 item 2. 100 requests each carrying a
// real signed JWT whose "kid" is 700 KiB wrote 68 MiB of logs; the
// middleware and the verifier must log such a value cut and quoted, and
// the whole flood must write less than 1 MiB.
func TestHugeKidLogsBounded(t *testing.T) {
	t.Parallel()
	logs := &testutil.CountingLog{Keep: 64 << 10}
	logger := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	f := newFixture(t, func(o *Options) { o.Logger = logger })
	kid := strings.Repeat("k", 700<<10)
	tok := sign(t, jwt.SigningMethodRS256, f.keys.rsa, kid, validClaims("mcp:read"))
	statuses := map[int]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 25 {
				req := f.request(t, http.MethodPost, "/mcp", `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
				req.Header.Set("Authorization", "Bearer "+tok)
				resp, _ := do(t, f.srv.Client(), req)
				mu.Lock()
				statuses[resp.StatusCode]++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if statuses[http.StatusOK] != 0 {
		t.Fatalf("a token with an unknown kid was let through: %v", statuses)
	}
	if n := logs.Len(); n >= 1<<20 {
		t.Fatalf("100 requests with a 700 KiB kid wrote %d bytes of logs, want < 1 MiB", n)
	}
	t.Logf("statuses %v, %d bytes of logs", statuses, logs.Len())
	recs := logs.Records()
	if len(recs) == 0 {
		t.Fatal("the rejections were not logged at all")
	}
	for _, rec := range recs {
		e, _ := rec["error"].(string)
		if e == "" {
			continue
		}
		if !strings.HasPrefix(e, `"`) || !strings.Contains(e, " bytes)") || len(e) > 400 {
			t.Errorf("logged error is not bounded and quoted: %.200s (%d bytes)", e, len(e))
		}
	}
}

// TestRequestValuesQuoted: a path and a token subject holding a newline
// and a terminal escape reach the log quoted (strconv.Quote), so a log
// viewer shows no forged line and no escape sequence runs.
func TestRequestValuesQuoted(t *testing.T) {
	t.Parallel()
	logs := &testutil.CountingLog{Keep: 64 << 10}
	logger := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	f := newFixture(t, func(o *Options) { o.Logger = logger })
	claims := validClaims("mcp:read")
	claims["sub"] = "eve\n{\"level\":\"ERROR\",\"msg\":\"forged\"}\x1b[2J"
	tok := f.rsaToken(t, claims)
	req := f.request(t, http.MethodPost, "/mcp%0Aforged%1B[2J", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`)
	req.Header.Set("Authorization", "Bearer "+tok)
	if resp, _ := do(t, f.srv.Client(), req); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("token lacking mcp:tools for tools/call: %d, want 403", resp.StatusCode)
	}
	var rec map[string]any
	for _, r := range logs.Records() {
		if r["msg"] == "auth: insufficient scope" {
			rec = r
		}
	}
	if rec == nil {
		t.Fatalf("no insufficient-scope record:\n%s", logs.Head())
	}
	for key, want := range map[string]string{
		"path":    `"/mcp\nforged\x1b[2J"`,
		"subject": `"eve\n{\"level\":\"ERROR\",\"msg\":\"forged\"}\x1b[2J"`,
	} {
		if got, _ := rec[key].(string); got != want {
			t.Errorf("%s logged as %q, want %q", key, got, want)
		}
	}
}
