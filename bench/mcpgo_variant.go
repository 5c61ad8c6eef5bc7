// This file adds the mcpmount-mcpgo server: the same mcp-go
// *server.MCPServer as the mcp-go row (NewMCPGoServer), served by
// httptransport through adapters/mcpgo (a module of its own, which
// bench/go.mod requires); see docs/engines-mcpgo.md for how it was
// measured.

package bench

import (
	"strconv"
	"sync/atomic"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	mcpgoengine "github.com/mcpmount/mcpmount/adapters/mcpgo"
	"github.com/mcpmount/mcpmount/httptransport"
)

// MCPMountMCPGo is the name of the mcpmount-mcpgo variant.
const MCPMountMCPGo = "mcpmount-mcpgo"

// MCPMountMCPGoVariant returns the variant serving mcp-go's server
// through mcpmount's transport.
func MCPMountMCPGoVariant() Variant {
	return Variant{Name: MCPMountMCPGo, New: func(Mode) *Instance { return newMCPGoInstance(nil) }}
}

// newMCPGoInstance is the mcpmount-mcpgo server, with obs as its Observer
// (nil: none).
func newMCPGoInstance(obs httptransport.Observer) *Instance {
	s := NewMCPGoServer()
	e := mcpgoengine.NewEngine(s, &mcpgoengine.Options{Logger: quiet})
	h := httptransport.New(e, &httptransport.Options{Logger: quiet, Observer: obs})
	var n atomic.Int64
	return &Instance{Handler: h, Broadcast: func() {
		s.AddTool(mcpgo.NewTool("extra"+strconv.FormatInt(n.Add(1), 10)), echoMCPGo)
	}, Close: func() {
		shutdown(h)
		_ = e.Close()
	}}
}
