package httptransport_test

import (
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/identity"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// TestGuards: the refusals every era shares, each with its status and
// JSON-RPC code (errors.go).
func TestGuards(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, &httptransport.Options{MaxBodyBytes: 1024})
	valid := `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + httptransport.Meta + `}}`
	with := func(kv ...string) http.Header {
		h := httptransport.ModernHeaders("server/discover")
		for i := 0; i+1 < len(kv); i += 2 {
			h.Set(kv[i], kv[i+1])
		}
		return h
	}
	tests := []struct {
		name   string
		header http.Header
		body   string
		status int
		code   int64
	}{
		{"oversized body", with(), `{"jsonrpc":"2.0","id":1,"method":"x","params":{"p":"` + strings.Repeat("a", 2000) + `"}}`, 413, jsonrpc.CodeInvalidRequest},
		{"wrong content type", with("Content-Type", "text/plain"), valid, 415, jsonrpc.CodeInvalidRequest},
		{"content type with charset", with("Content-Type", "application/json; charset=utf-8"), valid, 200, 0},
		{"accept neither", with("Accept", "text/html"), valid, 406, jsonrpc.CodeInvalidRequest},
		{"foreign origin", with("Origin", "http://evil.example"), valid, 403, jsonrpc.CodeInvalidRequest},
		{"localhost origin", with("Origin", "http://localhost:3000"), valid, 200, 0},
		{"parse error", with(), `{"jsonrpc":`, 400, jsonrpc.CodeParseError},
		{"not an object", with(), `42`, 400, jsonrpc.CodeInvalidRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := s.Do("POST", tt.header, tt.body)
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.status, body)
			}
			if tt.code != 0 {
				id, code, _ := httptransport.RPCError(t, body)
				if code != tt.code {
					t.Errorf("code %d, want %d", code, tt.code)
				}
				if id != "" && id != "null" {
					t.Errorf("id %s on an error about an unread request", id)
				}
			}
		})
	}
}

// TestDNSRebinding: a loopback server refuses a foreign Host, with or
// without a matching Origin, and accepts the loopback names.
func TestDNSRebinding(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, nil)
	valid := `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + httptransport.Meta + `}}`
	for host, want := range map[string]int{"evil.example": 403, "evil.example:80": 403, "localhost": 200, "127.0.0.1:9": 200, "[::1]:8080": 200} {
		req, _ := http.NewRequest("POST", s.URL, strings.NewReader(valid))
		req.Header = httptransport.ModernHeaders("server/discover")
		req.Host = host
		if want == 403 {
			req.Header.Set("Origin", "http://"+host)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("Host %s: %d, want %d", host, resp.StatusCode, want)
		}
	}
	s2 := httptransport.NewTestServer(t, &httptransport.Options{AllowedHosts: []string{"mcp.internal"}, AllowedOrigins: []string{"https://app.example"}})
	req, _ := http.NewRequest("POST", s2.URL, strings.NewReader(valid))
	req.Header = httptransport.ModernHeaders("server/discover")
	req.Host = "mcp.internal"
	req.Header.Set("Origin", "https://app.example")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Access-Control-Allow-Origin") != "https://app.example" {
		t.Errorf("allowed host and origin: %d %v", resp.StatusCode, resp.Header)
	}
	// "*" allows every origin and, as documented, every Host too (a
	// loopback listener behind a proxy that passes the public Host).
	s3 := httptransport.NewTestServer(t, &httptransport.Options{AllowedOrigins: []string{"*"}})
	req, _ = http.NewRequest("POST", s3.URL, strings.NewReader(valid))
	req.Header = httptransport.ModernHeaders("server/discover")
	req.Host = "public.example"
	req.Header.Set("Origin", "https://anywhere.example")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf(`AllowedOrigins "*" with another Host: %d`, resp.StatusCode)
	}
}

// TestPreflight: CORS preflights allow every MCP header, Mcp-Param-*
// included, and expose Mcp-Session-Id.
func TestPreflight(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, nil)
	h := http.Header{}
	h.Set("Origin", "http://localhost:5173")
	h.Set("Access-Control-Request-Method", "POST")
	h.Set("Access-Control-Request-Headers", "mcp-method, mcp-name, mcp-param-region, content-type")
	resp, _ := s.Do("OPTIONS", h, "")
	allow := resp.Header.Get("Access-Control-Allow-Headers")
	if resp.StatusCode != 204 || resp.Header.Get("Access-Control-Allow-Origin") != "http://localhost:5173" {
		t.Fatalf("%d %v", resp.StatusCode, resp.Header)
	}
	for _, want := range []string{"Mcp-Method", "Mcp-Name", "Mcp-Protocol-Version", "Mcp-Session-Id", "Last-Event-ID", "mcp-param-region"} {
		if !strings.Contains(allow, want) {
			t.Errorf("Allow-Headers %q lacks %s", allow, want)
		}
	}
	if !strings.Contains(resp.Header.Get("Access-Control-Expose-Headers"), "Mcp-Session-Id") {
		t.Errorf("Expose-Headers %q", resp.Header.Get("Access-Control-Expose-Headers"))
	}
}

// withIdentity is a stand-in for an auth middleware: the subject comes from
// the X-User header.
func withIdentity(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u := r.Header.Get("X-User"); u != "" {
			r = r.WithContext(identity.NewContext(r.Context(), &identity.Info{Subject: u, Issuer: "test"}))
		}
		next.ServeHTTP(w, r)
	})
}

// TestSessionBoundToOwner: a session created by one principal is not found
// for another; each modern request is authorized on its own.
func TestSessionBoundToOwner(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServerWith(t, nil, withIdentity)
	h := httptransport.SessionHeaders("", "")
	h.Set("X-User", "alice")
	resp, _ := s.Do("POST", h, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`)
	sid := resp.Header.Get("Mcp-Session-Id")
	if sid == "" {
		t.Fatal("no session")
	}
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`
	h = httptransport.SessionHeaders(sid, httptransport.Version20251125)
	h.Set("X-User", "alice")
	if resp, body := s.Do("POST", h, call); resp.StatusCode != 200 || !strings.Contains(body, `"who":"alice"`) {
		t.Fatalf("owner: %d %s", resp.StatusCode, body)
	}
	h.Set("X-User", "mallory")
	if resp, _ := s.Do("POST", h, call); resp.StatusCode != 404 {
		t.Errorf("another principal: %d", resp.StatusCode)
	}
	h.Del("X-User")
	if resp, _ := s.Do("POST", h, call); resp.StatusCode != 404 {
		t.Errorf("no principal: %d", resp.StatusCode)
	}
	mh := httptransport.ModernHeaders("tools/call")
	mh.Set("Mcp-Name", "echo")
	for _, u := range []string{"alice", "bob"} {
		mh.Set("X-User", u)
		_, body := s.Do("POST", mh, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{},`+httptransport.Meta+`}}`)
		if !strings.Contains(body, `"who":"`+u+`"`) {
			t.Errorf("modern request as %s: %s", u, body)
		}
	}
}

// TestEnginePanic: a panicking engine answers -32603 and the server lives
// on, in both eras.
func TestEnginePanic(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, &httptransport.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	h := httptransport.ModernHeaders("tools/call")
	h.Set("Mcp-Name", "panic")
	_, body := s.Do("POST", h, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"panic",`+httptransport.Meta+`}}`)
	if _, code, _ := httptransport.RPCError(t, body); code != jsonrpc.CodeInternalError {
		t.Errorf("modern: %s", body)
	}
	sid := s.Initialize(httptransport.Version20251125)
	_, body = s.Do("POST", httptransport.SessionHeaders(sid, httptransport.Version20251125), `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"panic"}}`)
	if _, code, _ := httptransport.RPCError(t, body); code != jsonrpc.CodeInternalError {
		t.Errorf("2025: %s", body)
	}
}

// TestWithCORS: a challenge answered by middleware in front of the handler
// is readable by an allowed browser origin; foreign origins get 403 first.
func TestWithCORS(t *testing.T) {
	t.Parallel()
	var h *httptransport.Handler
	deny := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="x"`)
			w.WriteHeader(http.StatusUnauthorized)
		})
	}
	s := httptransport.NewTestServerWith(t, nil, func(inner http.Handler) http.Handler {
		h = inner.(*httptransport.Handler)
		return h.WithCORS(deny(h))
	})
	hd := http.Header{"Origin": {"http://localhost:5173"}, "Content-Type": {"application/json"}}
	resp, _ := s.Do("POST", hd, `{}`)
	if resp.StatusCode != 401 || resp.Header.Get("Access-Control-Allow-Origin") != "http://localhost:5173" || !strings.Contains(resp.Header.Get("Access-Control-Expose-Headers"), "WWW-Authenticate") {
		t.Errorf("challenge: %d %v", resp.StatusCode, resp.Header)
	}
	hd.Set("Origin", "http://evil.example")
	if resp, _ := s.Do("POST", hd, `{}`); resp.StatusCode != 403 {
		t.Errorf("foreign origin: %d", resp.StatusCode)
	}
	pre := http.Header{"Origin": {"http://localhost:5173"}, "Access-Control-Request-Method": {"POST"}}
	if resp, _ := s.Do("OPTIONS", pre, ""); resp.StatusCode != 204 || resp.Header.Get("Access-Control-Allow-Methods") == "" {
		t.Errorf("preflight: %d %v", resp.StatusCode, resp.Header)
	}
}
