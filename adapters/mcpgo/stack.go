package mcpgo

// stackPad is the frame growStack takes: with what sits below it, more than
// a fresh goroutine's 8 KiB stack holds, so that the runtime moves the
// goroutine to a 16 KiB stack, which mcp-go's handling of a tools/call
// fits in.
const stackPad = 8 << 10

// growStack makes the runtime grow the calling goroutine's stack while it
// is still shallow. The transport serves a batch's calls and 2024-11-05
// calls on fresh goroutines, whose stacks start at 8 KiB; mcp-go's
// HandleMessage (its JSON decoding) goes deeper, and the runtime grows a
// stack by copying it, frame by frame, each time it runs out. Grown there,
// at mcp-go's depth, that took 8 µs of a 40 µs call in profiles of bench's
// session2025 when every session call had a goroutine of its own
// (runtime.copystack under HandleMessage); grown here, a few frames deep,
// it takes under 1 µs. A POST's single call runs on net/http's goroutine,
// grown already, where this is a zeroed frame and no measurable time
// (bench's session2025, with and without it alternating).
// It returns a byte of its frame so that the compiler keeps the frame.
//
//go:noinline
func growStack(i int) byte {
	var pad [stackPad]byte
	return pad[i&(stackPad-1)]
}
