package auth

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
)

// TestNewMetadata routes the paths NewMetadata returns on a router of
// exact paths, as gin or chi would, and fetches the document where a
// client looks: at the URL the challenges name and at the root path.
func TestNewMetadata(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		resource, url string
		paths         []string
	}{
		{"https://mcp.example.com/api/mcp", "https://mcp.example.com/.well-known/oauth-protected-resource/api/mcp",
			[]string{"/.well-known/oauth-protected-resource/api/mcp", "/.well-known/oauth-protected-resource"}},
		{"https://mcp.example.com/", "https://mcp.example.com/.well-known/oauth-protected-resource",
			[]string{"/.well-known/oauth-protected-resource"}},
	} {
		md := testMetadata()
		md.Resource = tc.resource
		meta, err := NewMetadata(md)
		if err != nil {
			t.Fatalf("NewMetadata(%q): %v", tc.resource, err)
		}
		if meta.URL != tc.url || !slices.Equal(meta.Paths, tc.paths) {
			t.Errorf("NewMetadata(%q) = %q, %q; want %q, %q", tc.resource, meta.URL, meta.Paths, tc.url, tc.paths)
		}
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !slices.Contains(meta.Paths, r.URL.EscapedPath()) {
				http.NotFound(w, r)
				return
			}
			meta.Handler.ServeHTTP(w, r)
		}))
		for _, p := range tc.paths {
			req, _ := http.NewRequest(http.MethodGet, srv.URL+p, nil)
			resp, body := do(t, srv.Client(), req)
			var doc ProtectedResourceMetadata
			if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &doc) != nil || doc.Resource != tc.resource {
				t.Errorf("GET %s: status %d, body %s", p, resp.StatusCode, body)
			}
		}
		srv.Close()
	}
	bad := testMetadata()
	bad.AuthorizationServers = nil
	if meta, err := NewMetadata(bad); err == nil {
		t.Errorf("NewMetadata accepted metadata without an authorization server: %+v", meta)
	}
}
