package wire

import "net/http"

// CanFlush reports whether w, or a writer it unwraps to, can flush, as
// http.ResponseController finds one. Behind a writer that cannot (a
// middleware's wrapper with neither Flush nor Unwrap), an SSE stream
// reaches its client only when its response ends: a call's stream late,
// a held stream never.
func CanFlush(w http.ResponseWriter) bool {
	for {
		switch t := w.(type) {
		case http.Flusher, interface{ FlushError() error }:
			return true
		case interface{ Unwrap() http.ResponseWriter }:
			w = t.Unwrap()
		default:
			return false
		}
	}
}
