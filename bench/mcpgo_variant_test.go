package bench

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// TestMCPGoProgressUnderLoad: 64 clients at once call the progress tool
// (2026-07-28, SSE, 10 notifications a call) 40 times each. Through
// mcpmount every notification arrives; mcp-go's own handler drops some
// when a session's channel is full (its sends are a select with a
// default), which the test reports.
func TestMCPGoProgressUnderLoad(t *testing.T) {
	var sc Scenario
	for _, s := range Scenarios() {
		if s.Name == "sse2026-progress" {
			sc = s
		}
	}
	if sc.Name == "" {
		t.Fatal("no sse2026-progress scenario")
	}
	mcpgoVariant, _ := VariantByName(MCPGo)
	for _, v := range []Variant{MCPMountMCPGoVariant(), mcpgoVariant} {
		t.Run(v.Name, func(t *testing.T) {
			lost, calls := progressUnderLoad(t, v, sc, 64, 40)
			t.Logf("%s: %d of %d calls lost progress notifications", v.Name, lost, calls)
			if v.Name == MCPMountMCPGo && lost != 0 {
				t.Errorf("%d calls lost notifications through mcpmount", lost)
			}
		})
	}
}

func progressUnderLoad(t *testing.T, v Variant, sc Scenario, clients, each int) (lost, calls int64) {
	before := runtime.NumGoroutine()
	srv, err := Start(v.New(sc.Mode))
	if err != nil {
		t.Fatal(err)
	}
	defer settle(before)
	defer srv.Stop()
	var lostCalls, n atomic.Int64
	var wg sync.WaitGroup
	for range clients {
		c, err := Dial(srv.Addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		req, err := sc.Prepare(c, srv.Addr)
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				resp, err := c.Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				l, err := sc.Check(resp)
				if err != nil {
					t.Error(err)
					return
				}
				n.Add(1)
				if l > 0 {
					lostCalls.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	return lostCalls.Load(), n.Load()
}
