package main

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpmount/mcpmount/examples/internal/demotest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// TestRun serves the example and drives its tools in every era.
func TestRun(t *testing.T) {
	t.Parallel()
	demotest.CheckRun(t, run, "[chi route /api/mcp")
}

// TestRunAuth serves the example with -auth: requests without a token are
// challenged, the metadata is published, and the printed token works.
func TestRunAuth(t *testing.T) {
	t.Parallel()
	demotest.CheckRunAuth(t, run)
}
