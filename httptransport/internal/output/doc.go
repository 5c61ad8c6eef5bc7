// Package output is where a call's messages and its answer go in
// httptransport: a stream that owns an HTTP response (Stream: a POST's, a
// session's GET stream, a resumed stream), or a relay to another stream
// (Relay: a 2025-03-26 batch member's, a 2024-11-05 call's). It sits
// beneath the calls and the per-era logic and above the connection (wire):
// it decides what to write, when to flush, and what to keep for a
// resuming client.
//
// It imports nothing of httptransport (Go forbids the cycle), so nothing
// here can reach back up into sessions, calls or the handler: what it
// needs of them is given at construction (Config, Session, Role).
package output
