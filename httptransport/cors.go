package httptransport

import (
	"net/http"
	"strings"
)

// corsAllowHeaders are the request headers an MCP browser client sends,
// of every era.
const corsAllowHeaders = "Content-Type, Accept, Authorization, Mcp-Session-Id, Mcp-Protocol-Version, Mcp-Method, Mcp-Name, Last-Event-ID"

// corsExposeHeaders are the response headers a browser client must read.
const corsExposeHeaders = "Mcp-Session-Id, WWW-Authenticate"

// setCORS marks a response to an allowed cross-origin request as readable
// by the calling origin. Origins were checked before (guard.go).
func (h *Handler) setCORS(w http.ResponseWriter, r *http.Request) {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return
	}
	hd := w.Header()
	if hd.Get("Access-Control-Allow-Origin") == origin {
		return // set already, by WithCORS
	}
	hd.Set("Access-Control-Allow-Origin", origin)
	hd.Add("Vary", "Origin")
	hd.Set("Access-Control-Expose-Headers", corsExposeHeaders)
}

// WithCORS applies the handler's Origin policy and CORS headers in front of
// next, which is typically authentication wrapped around h itself:
//
//	mux.Handle("/mcp", h.WithCORS(auth.RequireBearer(v, opts)(h)))
//
// so that a browser client can read a 401 or 403 challenge (and the
// WWW-Authenticate header) that the middleware answers before h runs.
// Preflights are answered here, without reaching next.
func (h *Handler) WithCORS(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h.answerCORS(w, r) {
			return
		}
		next.ServeHTTP(w, r)
	})
}

// answerCORS runs the checks every request meets first: a refused Origin
// gets 403 and a preflight its answer, which it reports by returning true;
// otherwise it sets the CORS headers of the response to come.
func (h *Handler) answerCORS(w http.ResponseWriter, r *http.Request) bool {
	if err := h.checkOrigin(r); err != nil {
		writeRefusal(w, noID, err)
		return true
	}
	if r.Method == http.MethodOptions {
		h.preflight(w, r)
		return true
	}
	h.setCORS(w, r)
	return false
}

// preflight answers a CORS preflight: every MCP header is allowed, and any
// Mcp-Param-* header the tool schema may call for.
func (h *Handler) preflight(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Allow", "GET, POST, DELETE, OPTIONS")
	if r.Header.Get("Origin") != "" && r.Header.Get("Access-Control-Request-Method") != "" {
		h.setCORS(w, r)
		hd.Set("Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS")
		allow := corsAllowHeaders
		for _, v := range r.Header.Values("Access-Control-Request-Headers") {
			for _, name := range strings.Split(v, ",") {
				name = strings.TrimSpace(name)
				if len(name) > len("mcp-param-") && strings.EqualFold(name[:len("mcp-param-")], "mcp-param-") {
					allow += ", " + name
				}
			}
		}
		hd.Set("Access-Control-Allow-Headers", allow)
		hd.Set("Access-Control-Max-Age", "600")
	}
	w.WriteHeader(http.StatusNoContent)
}
