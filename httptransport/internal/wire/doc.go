// Package wire is the bottom of httptransport's output: what a stream's
// HTTP response does on the connection, beneath the streams that decide
// what to write (internal/output's Stream and Relay), which are beneath
// the calls and the per-era logic. It holds the write guard that lets a
// cancelled call end a write blocked on its client, and the writer of a
// held stream taken over from net/http (Hijack, ParkedWriter), and the
// test of whether a response can flush at all (CanFlush).
//
// It imports nothing of httptransport (Go forbids the cycle), so nothing
// here can reach back up into sessions, calls or the handler: what it
// needs is passed in.
package wire
