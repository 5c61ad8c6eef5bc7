package httptransport

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/mcpmount/mcpmount/httptransport/internal/output"
	"github.com/mcpmount/mcpmount/identity"
	"github.com/mcpmount/mcpmount/internal/logval"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// initialize creates a session (or, with Options.Stateless, answers
// without one). The session's record is stored before the engine runs, so
// that the Mcp-Session-Id the response carries (on its headers, which may
// go out before the answer) always names a stored session: a store that
// fails refuses the handshake with 503 and no session id.
func (h *Handler) initialize(w http.ResponseWriter, r *http.Request, m *jsonrpc.Message, accept acceptance) {
	if h.cfg.stateless {
		req := &request{msgs: []*jsonrpc.Message{m}, errs: []error{nil}}
		h.serveMessages(&exchange{w: w, r: r, accept: accept, version: requestedVersion(m)}, req)
		return
	}
	owner := identity.FromContext(r.Context()).Owner()
	addr := h.sessionAddr(r, owner)
	release, herr := h.admitNewSession(r.Context(), owner, addr)
	if herr != nil {
		writeRefusal(w, noID, herr)
		return
	}
	sess := &Session{ID: h.mintSessionID(), Version: requestedVersion(m)}
	// Pending until the engine has accepted the handshake: a request naming
	// the id before that (its headers may go out first) finds no session.
	rec := &SessionRecord{ID: sess.ID, Owner: owner, Version: sess.Version, Pending: true}
	var err error
	h.withStore(r.Context(), func(ctx context.Context) { err = h.sessions.Put(ctx, rec, h.cfg.idleTimeout) })
	if err != nil {
		release()
		h.logError("mcp: storing new session failed", "error", logval.Err(err))
		writeRefusal(w, noID, errSessionStore)
		return
	}
	ls := h.newLiveSession(sess, owner, addr, release)
	st := h.newStream(w, accept, output.Role{ReqID: m.ID, Header: func(hd http.Header) { hd.Set("Mcp-Session-Id", sess.ID) }})
	ctx, hs := h.handshakes.begin(r, h.ctx, addr, h.cfg.handshakeTimeout)
	defer h.handshakes.end(hs) // after the places were kept or given back
	cancel := func() { hs.cancel(context.Canceled) }
	call := &Call{Request: m, Version: sess.Version, Session: sess, Header: r.Header, out: st, ctx: ctx, cancel: cancel}
	st.StartTimer(r)
	resp, err := h.serveEngine(ctx, call)
	if ctx.Err() != nil {
		// Past the deadline, evicted, or the handler closing: whatever the
		// engine said, the session is not opened.
		resp, err = jsonrpc.NewError(m.ID, handshakeError(context.Cause(ctx))), nil
	}
	resp = responseOf(m.ID, resp, err)
	if resp.Error == nil {
		sess.Version = negotiatedVersion(resp, sess.Version)
		sess.takeDirty()
		rec.Version, rec.State, rec.Pending = sess.Version, sess.State(), false
		ls.touched = time.Now() // not yet visible to other goroutines
		h.withStore(r.Context(), func(ctx context.Context) { err = h.sessions.Put(ctx, rec, h.cfg.idleTimeout) })
		if err != nil {
			h.logError("mcp: storing new session failed", "error", logval.Err(err))
			resp = jsonrpc.NewError(m.ID, jsonrpc.Errorf(jsonrpc.CodeInternalError, "could not store the session"))
		} else if _, err := h.adopt(ls); err != nil {
			if !errors.Is(err, errClosing) {
				h.logError("mcp: engine refused the session", "error", logval.Err(err))
			}
			resp = jsonrpc.NewError(m.ID, jsonrpc.Errorf(jsonrpc.CodeInternalError, "could not open the session"))
		}
	}
	if resp.Error != nil {
		st.DropHeader()
		ls.stop()
		release() // once: a failed adopt ended the session, which gave it back
		h.withStore(context.WithoutCancel(r.Context()), func(ctx context.Context) { _ = h.sessions.Delete(ctx, sess.ID) })
	}
	st.Finish(resp)
	st.Detach()
}

// admitNewSession takes a new session's places in the bounds it counts in:
// its principal's (Options.MaxSessionsPerPrincipal), the instance's and
// its client address's (sessionbound.go). It returns what gives them all
// back, once however often it is called, or the refusal.
func (h *Handler) admitNewSession(ctx context.Context, owner, addr string) (release func(), herr *httpError) {
	if !h.sessionQ.take(owner, 1) {
		return nil, errTooManySessions
	}
	principal := h.sessionQ.place(owner)
	bound := h.admitSession(ctx, addr)
	if bound == nil {
		if principal != nil {
			principal()
		}
		return nil, errInstanceSessions
	}
	if principal == nil {
		return bound, nil
	}
	return func() { principal(); bound() }, nil
}

// negotiatedVersion reads protocolVersion from an initialize result.
func negotiatedVersion(resp *jsonrpc.Message, def string) string {
	var res struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if json.Unmarshal(resp.Result, &res) == nil && res.ProtocolVersion != "" {
		return res.ProtocolVersion
	}
	return def
}

// requestedVersion is initialize's requested version when the transport
// knows it as a 2025-era one, else the newest 2025-era version.
func requestedVersion(m *jsonrpc.Message) string {
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	_ = json.Unmarshal(m.Params, &p)
	switch p.ProtocolVersion {
	case Version20241105, Version20250326, Version20250618, Version20251125:
		return p.ProtocolVersion
	}
	return Version20251125
}
