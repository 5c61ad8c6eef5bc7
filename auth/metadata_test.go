package auth

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func testMetadata() *ProtectedResourceMetadata {
	return &ProtectedResourceMetadata{
		Resource:              "https://mcp.example.com/public/mcp",
		AuthorizationServers:  []string{"https://as.example.com"},
		ScopesSupported:       []string{"mcp:read", "mcp:tools"},
		ResourceName:          "Example MCP",
		ResourceDocumentation: "https://docs.example.com/mcp",
	}
}

func TestWellKnownPath(t *testing.T) {
	t.Parallel()
	tests := []struct{ resource, path, url string }{
		{"https://h.example/public/mcp", "/.well-known/oauth-protected-resource/public/mcp", "https://h.example/.well-known/oauth-protected-resource/public/mcp"},
		{"https://h.example/mcp", "/.well-known/oauth-protected-resource/mcp", "https://h.example/.well-known/oauth-protected-resource/mcp"},
		{"https://h.example", "/.well-known/oauth-protected-resource", "https://h.example/.well-known/oauth-protected-resource"},
		{"https://h.example/", "/.well-known/oauth-protected-resource", "https://h.example/.well-known/oauth-protected-resource"},
		{"https://h.example:8443/a%20b/mcp", "/.well-known/oauth-protected-resource/a%20b/mcp", "https://h.example:8443/.well-known/oauth-protected-resource/a%20b/mcp"},
		{"http://localhost:3000/mcp", "/.well-known/oauth-protected-resource/mcp", "http://localhost:3000/.well-known/oauth-protected-resource/mcp"},
		{"http://127.0.0.1:3000/mcp", "/.well-known/oauth-protected-resource/mcp", "http://127.0.0.1:3000/.well-known/oauth-protected-resource/mcp"},
		{"http://[::1]:3000/mcp", "/.well-known/oauth-protected-resource/mcp", "http://[::1]:3000/.well-known/oauth-protected-resource/mcp"},
	}
	for _, tc := range tests {
		got, err := WellKnownPath(tc.resource)
		if err != nil || got != tc.path {
			t.Errorf("WellKnownPath(%q) = %q, %v; want %q", tc.resource, got, err, tc.path)
		}
		u, err := MetadataURL(tc.resource)
		if err != nil || u != tc.url {
			t.Errorf("MetadataURL(%q) = %q, %v; want %q", tc.resource, u, err, tc.url)
		}
	}
	for _, bad := range []string{
		"", "/mcp", "mcp.example.com/mcp", "http://mcp.example.com/mcp", "ftp://h/mcp",
		"https://h/mcp#frag", "https://h/mcp#", "https://h/mcp?x=1", "https://user@h/mcp",
		"https://H.example.com/mcp", "HTTPS://h.example.com/mcp",
	} {
		if got, err := WellKnownPath(bad); err == nil {
			t.Errorf("WellKnownPath(%q) = %q, want an error", bad, got)
		}
	}
}

func TestMetadataValidate(t *testing.T) {
	t.Parallel()
	if err := testMetadata().Validate(); err != nil {
		t.Fatalf("valid metadata: %v", err)
	}
	bad := map[string]func(*ProtectedResourceMetadata){
		"no authorization server":    func(m *ProtectedResourceMetadata) { m.AuthorizationServers = nil },
		"http authorization server":  func(m *ProtectedResourceMetadata) { m.AuthorizationServers = []string{"http://as.example.com"} },
		"authorization server query": func(m *ProtectedResourceMetadata) { m.AuthorizationServers = []string{"https://as.example.com?x=1"} },
		"offline_access":             func(m *ProtectedResourceMetadata) { m.ScopesSupported = append(m.ScopesSupported, OfflineAccess) },
		"bad scope":                  func(m *ProtectedResourceMetadata) { m.ScopesSupported = []string{"a b"} },
		"query bearer method":        func(m *ProtectedResourceMetadata) { m.BearerMethodsSupported = []string{"header", "query"} },
		"fragment in resource":       func(m *ProtectedResourceMetadata) { m.Resource += "#x" },
		"http resource":              func(m *ProtectedResourceMetadata) { m.Resource = "http://mcp.example.com/mcp" },
		"relative resource":          func(m *ProtectedResourceMetadata) { m.Resource = "/mcp" },
	}
	for name, edit := range bad {
		md := testMetadata()
		edit(md)
		if err := md.Validate(); err == nil {
			t.Errorf("%s: Validate accepted it", name)
		}
	}
	if err := (*ProtectedResourceMetadata)(nil).Validate(); err == nil {
		t.Error("nil metadata accepted")
	}
}

func TestMetadataHandler(t *testing.T) {
	t.Parallel()
	md := testMetadata()
	srv := httptest.NewServer(MetadataHandler(md))
	defer srv.Close()
	md.ResourceName = "changed later" // the handler serves a snapshot

	req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
	req.Header.Set("Origin", "https://app.example.com")
	resp, body := do(t, srv.Client(), req)
	if resp.StatusCode != 200 {
		t.Fatalf("GET status = %d", resp.StatusCode)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q", ct)
	}
	if o := resp.Header.Get("Access-Control-Allow-Origin"); o != "*" {
		t.Errorf("Access-Control-Allow-Origin = %q", o)
	}
	var doc map[string]any
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatalf("body %s: %v", body, err)
	}
	want := map[string]any{
		"resource":                 "https://mcp.example.com/public/mcp",
		"authorization_servers":    []any{"https://as.example.com"},
		"scopes_supported":         []any{"mcp:read", "mcp:tools"},
		"bearer_methods_supported": []any{"header"},
		"resource_name":            "Example MCP",
		"resource_documentation":   "https://docs.example.com/mcp",
	}
	if len(doc) != len(want) {
		t.Errorf("document has fields %v, want exactly %v", doc, want)
	}
	for k, v := range want {
		got, _ := json.Marshal(doc[k])
		exp, _ := json.Marshal(v)
		if string(got) != string(exp) {
			t.Errorf("%s = %s, want %s", k, got, exp)
		}
	}

	req, _ = http.NewRequest(http.MethodOptions, srv.URL, nil)
	req.Header.Set("Origin", "https://app.example.com")
	req.Header.Set("Access-Control-Request-Method", "GET")
	resp, _ = do(t, srv.Client(), req)
	if resp.StatusCode != http.StatusNoContent || resp.Header.Get("Access-Control-Allow-Origin") != "*" ||
		!strings.Contains(resp.Header.Get("Access-Control-Allow-Methods"), "GET") {
		t.Errorf("OPTIONS: status %d, headers %v", resp.StatusCode, resp.Header)
	}

	req, _ = http.NewRequest(http.MethodHead, srv.URL, nil)
	resp, body = do(t, srv.Client(), req)
	if resp.StatusCode != 200 || len(body) != 0 {
		t.Errorf("HEAD: status %d, body %q", resp.StatusCode, body)
	}

	req, _ = http.NewRequest(http.MethodPost, srv.URL, strings.NewReader("{}"))
	resp, _ = do(t, srv.Client(), req)
	if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") == "" {
		t.Errorf("POST: status %d, Allow %q", resp.StatusCode, resp.Header.Get("Allow"))
	}

	defer func() {
		if recover() == nil {
			t.Error("MetadataHandler accepted invalid metadata")
		}
	}()
	MetadataHandler(&ProtectedResourceMetadata{Resource: "https://h/mcp"})
}

func TestMount(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ resource, pathAware string }{
		{"https://mcp.example.com/public/mcp", "/.well-known/oauth-protected-resource/public/mcp"},
		{"https://mcp.example.com/mcp/", "/.well-known/oauth-protected-resource/mcp/"},
		{"https://mcp.example.com", ""},
	} {
		t.Run(tc.resource, func(t *testing.T) {
			md := testMetadata()
			md.Resource = tc.resource
			mux := http.NewServeMux()
			if err := Mount(mux, md); err != nil {
				t.Fatalf("Mount: %v", err)
			}
			srv := httptest.NewServer(mux)
			defer srv.Close()
			paths := []string{WellKnownPrefix}
			if tc.pathAware != "" {
				paths = append(paths, tc.pathAware)
			}
			for _, p := range paths {
				req, _ := http.NewRequest(http.MethodGet, srv.URL+p, nil)
				resp, body := do(t, srv.Client(), req)
				var doc ProtectedResourceMetadata
				if resp.StatusCode != 200 || json.Unmarshal(body, &doc) != nil || doc.Resource != tc.resource {
					t.Errorf("GET %s: status %d, body %s", p, resp.StatusCode, body)
				}
			}
			// Neighbouring paths are not served.
			req, _ := http.NewRequest(http.MethodGet, srv.URL+WellKnownPrefix+"/other", nil)
			if resp, _ := do(t, srv.Client(), req); resp.StatusCode != http.StatusNotFound {
				t.Errorf("unrelated path: status %d", resp.StatusCode)
			}
		})
	}
	bad := testMetadata()
	bad.ScopesSupported = []string{OfflineAccess}
	if err := Mount(http.NewServeMux(), bad); err == nil {
		t.Error("Mount accepted invalid metadata")
	}
}

// mountNoPanic calls Mount and turns a panic into a test failure.
func mountNoPanic(t *testing.T, mux *http.ServeMux, md *ProtectedResourceMetadata) (err error) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("Mount(%q) panicked: %v", md.Resource, r)
		}
	}()
	return Mount(mux, md)
}

// TestMountEscapedResourcePath checks that Mount serves the metadata at
// exactly the URL MetadataURL advertises when the resource path holds
// percent-encoded bytes: an escaped slash must stay one path segment, and
// an escaped space must not break the ServeMux pattern.
func TestMountEscapedResourcePath(t *testing.T) {
	t.Parallel()
	for _, resource := range []string{
		"https://mcp.example.com/a%2Fb",
		"https://mcp.example.com/my%20mcp",
		"https://mcp.example.com/mcp",
	} {
		t.Run(resource, func(t *testing.T) {
			md := testMetadata()
			md.Resource = resource
			mux := http.NewServeMux()
			if err := mountNoPanic(t, mux, md); err != nil {
				t.Fatalf("Mount: %v", err)
			}
			srv := httptest.NewServer(mux)
			defer srv.Close()

			advertised, err := MetadataURL(resource)
			if err != nil {
				t.Fatal(err)
			}
			target := srv.URL + strings.TrimPrefix(advertised, "https://mcp.example.com")
			for _, u := range []string{target, srv.URL + WellKnownPrefix} {
				req, _ := http.NewRequest(http.MethodGet, u, nil)
				resp, body := do(t, srv.Client(), req)
				var doc ProtectedResourceMetadata
				if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &doc) != nil || doc.Resource != resource {
					t.Errorf("GET %s: status %d, body %s", u, resp.StatusCode, body)
				}
			}
		})
	}
}

// TestMountReturnsErrorsInsteadOfPanicking checks that a path ServeMux
// cannot register, or would never serve, comes back from Mount as an error.
func TestMountReturnsErrorsInsteadOfPanicking(t *testing.T) {
	t.Parallel()
	// An unclean path gives a pattern ServeMux never matches, since it
	// cleans request paths first; nothing is registered then.
	md := testMetadata()
	md.Resource = "https://mcp.example.com/a/../mcp"
	mux := http.NewServeMux()
	if err := mountNoPanic(t, mux, md); err == nil {
		t.Error("Mount accepted a resource path ServeMux would never serve")
	}
	if _, pattern := mux.Handler(httptest.NewRequest(http.MethodGet, WellKnownPrefix, nil)); pattern != "" {
		t.Errorf("a failed Mount registered %q", pattern)
	}

	// A path already registered is an error, not ServeMux's panic.
	mux = http.NewServeMux()
	if err := mountNoPanic(t, mux, testMetadata()); err != nil {
		t.Fatalf("first Mount: %v", err)
	}
	if err := mountNoPanic(t, mux, testMetadata()); err == nil {
		t.Error("second Mount of the same paths succeeded")
	}
}
