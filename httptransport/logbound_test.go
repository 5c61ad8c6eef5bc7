package httptransport

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mcpmount/mcpmount/internal/logval"
	"github.com/mcpmount/mcpmount/internal/testutil"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// echoingStore is a session store that is down, and says so naming the
// session it was asked for, as a real store's client does ("GET
// mcp:session:<id>: connection refused").
type echoingStore struct{ *MemorySessionStore }

func (echoingStore) Get(_ context.Context, id string) (*SessionRecord, error) {
	return nil, fmt.Errorf("store: GET session %s: %w", id, errStoreDown)
}

// explodingEngine panics on every call but initialize, with a message
// naming the method, as a careless engine's panic would.
type explodingEngine struct{ *TestEngine }

func (e explodingEngine) Serve(ctx context.Context, call *Call) (*jsonrpc.Message, error) {
	if call.Request.Method != "initialize" {
		panic("no handler for " + call.Request.Method)
	}
	return e.TestEngine.Serve(ctx, call)
}

// jsonLogged returns Options logging JSON records to logs, at Debug.
func jsonLogged(logs *testutil.CountingLog, opts Options) *Options {
	opts.Logger = slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	return &opts
}

// flood sends n requests from 4 workers, each built by req, and returns
// how many got each status.
func flood(s *TestServer, n int, req func() (http.Header, string)) map[int]int {
	statuses := map[int]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range n / 4 {
				h, body := req()
				resp, _ := s.Do("POST", h, body)
				mu.Lock()
				statuses[resp.StatusCode]++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return statuses
}

// TestLongSessionIDLogsBounded: issue 19 item 2. With the session store
// down, 100 requests each naming a session id of the longest length
// accepted (256 bytes of visible ASCII; a 700 KiB one is refused with 400
// before any lookup) are answered 503 and logged with the id and the
// store's error (which names the id) cut and quoted, logBurst lines of
// the kind, the rest suppressed.
func TestLongSessionIDLogsBounded(t *testing.T) {
	t.Parallel()
	logs := &testutil.CountingLog{Keep: 64 << 10}
	s := NewTestServer(t, jsonLogged(logs, Options{Sessions: echoingStore{NewMemorySessionStore()}}))
	sid := strings.Repeat("s", 256)
	statuses := flood(s, 100, func() (http.Header, string) {
		return SessionHeaders(sid, Version20251125), `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	})
	if statuses[http.StatusServiceUnavailable] != 100 {
		t.Fatalf("statuses %v, want 100 × 503 (store down)", statuses)
	}
	t.Logf("%d bytes of logs", logs.Len())
	recs := logs.Records()
	if len(recs) != logBurst {
		t.Errorf("%d records for 100 store failures, want %d (the rest suppressed):\n%.1000s", len(recs), logBurst, logs.Head())
	}
	want := logval.String(sid)
	for _, rec := range recs {
		if rec["session"] != want || !strings.HasSuffix(fmt.Sprint(rec["error"]), "("+strconv.Itoa(len(sid)+len("store: GET session : ")+len(errStoreDown.Error()))+" bytes)") {
			t.Errorf("record not bounded: session %.100v, error %.300v", rec["session"], rec["error"])
			break
		}
	}
}

// TestHugeMethodLogsBounded: 100 calls naming a 700 KiB method, each
// making the engine panic with a message that names it, are answered
// -32603 and logged with the method and the panic cut and quoted.
func TestHugeMethodLogsBounded(t *testing.T) {
	t.Parallel()
	logs := &testutil.CountingLog{Keep: 64 << 10}
	te := NewTestEngine()
	s := StartTestServer(t, te, jsonLogged(logs, Options{}), nil, false)
	sid := s.Initialize(Version20251125)
	s.Handler.engine = explodingEngine{te}
	method := strings.Repeat("m", 700<<10)
	var id atomic.Int64 // ids in flight at once must differ
	statuses := flood(s, 100, func() (http.Header, string) {
		h := SessionHeaders(sid, Version20251125)
		h.Set("Accept", "application/json")
		return h, `{"jsonrpc":"2.0","id":` + strconv.FormatInt(id.Add(1), 10) + `,"method":"` + method + `"}`
	})
	if statuses[http.StatusOK] != 100 {
		t.Fatalf("statuses %v, want 100 × 200 (a -32603 answer each)", statuses)
	}
	if n := logs.Len(); n >= 1<<20 {
		t.Fatalf("100 calls with a 700 KiB method wrote %d bytes of logs, want < 1 MiB", n)
	}
	t.Logf("%d bytes of logs", logs.Len())
	panics := 0
	for _, rec := range logs.Records() {
		if rec["msg"] != "mcp: engine panicked" {
			continue
		}
		panics++
		if rec["method"] != logval.String(method) || !strings.HasSuffix(fmt.Sprint(rec["panic"]), " bytes)") {
			t.Errorf("record not bounded: method %.100v, panic %.300v", rec["method"], rec["panic"])
			break
		}
	}
	if panics != logBurst {
		t.Errorf("%d panic records for 100 panics, want %d:\n%.1000s", panics, logBurst, logs.Head())
	}
}

// TestMethodControlCharactersQuoted: a method name holding a newline and
// a terminal escape reaches the log quoted, so no log viewer shows a
// forged line.
func TestMethodControlCharactersQuoted(t *testing.T) {
	t.Parallel()
	logs := &testutil.CountingLog{Keep: 64 << 10}
	te := NewTestEngine()
	s := StartTestServer(t, te, jsonLogged(logs, Options{}), nil, false)
	sid := s.Initialize(Version20251125)
	s.Handler.engine = explodingEngine{te}
	method := "x\n{\"level\":\"ERROR\",\"msg\":\"forged\"}\x1b[2J"
	name, err := json.Marshal(method)
	if err != nil {
		t.Fatal(err)
	}
	body := `{"jsonrpc":"2.0","id":1,"method":` + string(name) + `}`
	if resp, got := s.Do("POST", SessionHeaders(sid, Version20251125), body); resp.StatusCode != http.StatusOK {
		t.Fatalf("call: %d %s", resp.StatusCode, got)
	}
	for _, rec := range logs.Records() {
		if rec["msg"] == "mcp: engine panicked" {
			if got, want := rec["method"], strconv.Quote(method); got != want {
				t.Errorf("method logged as %q, want %q", got, want)
			}
			return
		}
	}
	t.Fatalf("the panic was not logged:\n%.1000s", logs.Head())
}
