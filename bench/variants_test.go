package bench

import (
	"runtime"
	"slices"
	"testing"
)

// TestVariants checks that every server variant answers each scenario's
// request correctly, so that the benchmarks measure working servers.
func TestVariants(t *testing.T) {
	for _, sc := range Scenarios() {
		for _, v := range Variants() {
			t.Run(sc.Name+"/"+v.Name, func(t *testing.T) { checkVariant(t, sc, v) })
		}
	}
}

// TestObservedVariants is TestVariants for BenchmarkObserved's servers.
func TestObservedVariants(t *testing.T) {
	for _, sc := range Scenarios() {
		if !slices.Contains(observedScenarios, sc.Name) {
			continue
		}
		for _, engine := range ObservedEngines {
			for _, obs := range Observers {
				v, err := ObservedVariant(engine, obs)
				if err != nil {
					t.Fatal(err)
				}
				t.Run(sc.Name+"/"+v.Name, func(t *testing.T) { checkVariant(t, sc, v) })
			}
		}
	}
}

// checkVariant serves sc's request three times from a server of v and
// checks the answers, then that the stopped server left no goroutine.
func checkVariant(t *testing.T, sc Scenario, v Variant) {
	if sc.Needs2026 && v.Rejects2026 {
		t.Skip("rejects 2026-07-28 requests")
	}
	before := runtime.NumGoroutine()
	srv, err := Start(v.New(sc.Mode))
	if err != nil {
		t.Fatal(err)
	}
	c, err := Dial(srv.Addr)
	if err != nil {
		t.Fatal(err)
	}
	req, err := sc.Prepare(c, srv.Addr)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		lost, err := sc.Check(resp)
		if err != nil {
			t.Fatal(err)
		}
		if lost > 0 {
			t.Logf("%d progress notifications missing", lost)
		}
	}
	_ = c.Close()
	srv.Stop()
	if n := settle(before); n > before {
		t.Errorf("%d goroutines left behind", n-before)
	}
}

// TestHold runs the held-stream harness on a few streams per variant: a
// child server, streams opened, memory read, the fan-out received by all.
func TestHold(t *testing.T) {
	exe := testExecutable(t)
	for _, v := range Variants() {
		t.Run(v.Name, func(t *testing.T) {
			child, err := StartChild(exe, v.Name)
			if err != nil {
				t.Fatal(err)
			}
			conns, err := OpenStreams(child.Addr, v.HoldGET, 5)
			if err != nil {
				child.Kill()
				t.Fatal(err)
			}
			if _, _, err := child.Mem(); err != nil {
				t.Error(err)
			}
			if _, _, err := FanOut(child, conns); err != nil {
				t.Error(err)
			}
			CloseAll(conns)
			if err := child.Quit(); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestChecksRejectFailures: the scenarios' checks refuse answers that are
// not a successful echo call, though they carry the echoed text (they
// took any 200 body holding it).
func TestChecksRejectFailures(t *testing.T) {
	bad := map[string]string{
		"tool error (isError)": `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hello, world"}],"isError":true}}`,
		"wrong id":             `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"hello, world"}]}}`,
		"JSON-RPC error":       `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad","data":{"arguments":{"text":"hello, world"}}}}`,
	}
	for name, body := range bad {
		if _, err := checkEcho(Response{Status: 200, Body: []byte(body)}); err == nil {
			t.Errorf("checkEcho accepts a %s: %s", name, body)
		}
	}
}
