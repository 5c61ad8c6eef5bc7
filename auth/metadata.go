package auth

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"strings"
)

// WellKnownPrefix is the well-known path of RFC 9728 protected resource
// metadata.
const WellKnownPrefix = "/.well-known/oauth-protected-resource"

// ProtectedResourceMetadata is the RFC 9728 (section 2) document that tells
// clients which authorization servers issue tokens for this resource. Empty
// optional fields are left out of the JSON.
type ProtectedResourceMetadata struct {
	// Resource is the resource identifier: the canonical URI of the MCP
	// endpoint, byte-identical to the URL clients use, e.g.
	// "https://mcp.example.com/mcp". Required.
	Resource string `json:"resource"`
	// AuthorizationServers lists the issuer identifiers of the
	// authorization servers for this resource. MCP requires at least one.
	AuthorizationServers []string `json:"authorization_servers,omitempty"`
	// JWKSURI is the URL of the resource's own JWK Set, for signed
	// responses; it is not the authorization server's key set.
	JWKSURI string `json:"jwks_uri,omitempty"`
	// ScopesSupported lists the scopes used in authorization requests for
	// this resource; MCP reads it as the scopes for basic functionality.
	ScopesSupported []string `json:"scopes_supported,omitempty"`
	// BearerMethodsSupported lists how tokens may be sent. This package
	// accepts only "header", which is also what an empty value is served
	// as.
	BearerMethodsSupported []string `json:"bearer_methods_supported,omitempty"`
	// ResourceSigningAlgValuesSupported lists the JWS algorithms the
	// resource uses to sign responses.
	ResourceSigningAlgValuesSupported []string `json:"resource_signing_alg_values_supported,omitempty"`
	// ResourceName is a human-readable name for end users.
	ResourceName string `json:"resource_name,omitempty"`
	// ResourceDocumentation is the URL of developer documentation.
	ResourceDocumentation string `json:"resource_documentation,omitempty"`
	// ResourcePolicyURI is the URL of the data usage policy.
	ResourcePolicyURI string `json:"resource_policy_uri,omitempty"`
	// ResourceTOSURI is the URL of the terms of service.
	ResourceTOSURI string `json:"resource_tos_uri,omitempty"`
	// TLSClientCertificateBoundAccessTokens reports support for mutual-TLS
	// certificate-bound access tokens (RFC 8705).
	TLSClientCertificateBoundAccessTokens bool `json:"tls_client_certificate_bound_access_tokens,omitempty"`
	// AuthorizationDetailsTypesSupported lists the authorization_details
	// types (RFC 9396) the resource understands.
	AuthorizationDetailsTypesSupported []string `json:"authorization_details_types_supported,omitempty"`
	// DPoPSigningAlgValuesSupported lists the JWS algorithms accepted for
	// DPoP proofs (RFC 9449).
	DPoPSigningAlgValuesSupported []string `json:"dpop_signing_alg_values_supported,omitempty"`
	// DPoPBoundAccessTokensRequired reports whether DPoP-bound tokens are
	// always required.
	DPoPBoundAccessTokensRequired bool `json:"dpop_bound_access_tokens_required,omitempty"`
}

// Validate checks the document against RFC 9728 and the MCP authorization
// spec: Resource must be an absolute https URL (http only for loopback
// hosts) with lowercase scheme and host and no query, fragment or user
// information; there must be at least one authorization server, each an
// https URL without query or fragment; scopes must be valid scope-tokens
// and must not include offline_access (MCP 2026-07-28 says SHOULD NOT);
// bearer methods may only be "header".
func (md *ProtectedResourceMetadata) Validate() error {
	if md == nil {
		return errors.New("auth: protected resource metadata is nil")
	}
	if _, err := parseResource(md.Resource); err != nil {
		return err
	}
	if len(md.AuthorizationServers) == 0 {
		return errors.New("auth: metadata: authorization_servers needs at least one issuer")
	}
	for _, as := range md.AuthorizationServers {
		u, err := parseSecureURL(as)
		if err != nil {
			return fmt.Errorf("auth: metadata: authorization server: %w", err)
		}
		if u.RawQuery != "" || u.ForceQuery {
			return fmt.Errorf("auth: metadata: authorization server %q has a query", as)
		}
	}
	if err := checkScopes(md.ScopesSupported); err != nil {
		return fmt.Errorf("auth: metadata: scopes_supported: %w", err)
	}
	for _, m := range md.BearerMethodsSupported {
		if m != "header" {
			return fmt.Errorf("auth: metadata: bearer method %q is not supported (only \"header\")", m)
		}
	}
	return nil
}

// parseResource parses and checks a resource identifier.
func parseResource(resource string) (*url.URL, error) {
	u, err := parseSecureURL(resource)
	if err != nil {
		return nil, fmt.Errorf("auth: resource: %w", err)
	}
	if u.RawQuery != "" || u.ForceQuery {
		return nil, fmt.Errorf("auth: resource %q has a query", resource)
	}
	if u.Host != strings.ToLower(u.Host) || !strings.HasPrefix(resource, u.Scheme+"://") {
		return nil, fmt.Errorf("auth: resource %q is not canonical: scheme and host must be lowercase", resource)
	}
	return u, nil
}

// WellKnownPath returns the path at which clients look for the metadata of
// resourceURL (RFC 9728 section 3.1): the well-known prefix inserted
// between host and path, so "https://h/public/mcp" gives
// "/.well-known/oauth-protected-resource/public/mcp" and "https://h" or
// "https://h/" give "/.well-known/oauth-protected-resource". The path keeps
// its percent-encoding.
func WellKnownPath(resourceURL string) (string, error) {
	u, err := parseResource(resourceURL)
	if err != nil {
		return "", err
	}
	p := u.EscapedPath()
	if p == "/" {
		p = ""
	}
	return WellKnownPrefix + p, nil
}

// MetadataURL returns the absolute URL of the metadata of resourceURL at
// its path-aware well-known location, for Options.ResourceMetadataURL.
func MetadataURL(resourceURL string) (string, error) {
	u, err := parseResource(resourceURL)
	if err != nil {
		return "", err
	}
	p, err := WellKnownPath(resourceURL)
	if err != nil {
		return "", err
	}
	return u.Scheme + "://" + u.Host + p, nil
}

// MetadataHandler serves md as application/json to GET and HEAD, answers
// OPTIONS for CORS preflight with 204, and refuses other methods with 405.
// Every answer allows any origin (Access-Control-Allow-Origin: *), because
// browser-based MCP clients fetch the document before they hold a token;
// the document needs no token. The document is encoded once, so later
// changes to md are not served.
//
// MetadataHandler panics if md fails Validate; use Mount to get an error
// instead.
func MetadataHandler(md *ProtectedResourceMetadata) http.Handler {
	h, err := newMetadataHandler(md)
	if err != nil {
		panic(err.Error())
	}
	return h
}

func newMetadataHandler(md *ProtectedResourceMetadata) (http.Handler, error) {
	if err := md.Validate(); err != nil {
		return nil, err
	}
	doc := *md
	if len(doc.BearerMethodsSupported) == 0 {
		doc.BearerMethodsSupported = []string{"header"}
	}
	body, err := json.Marshal(&doc)
	if err != nil {
		return nil, fmt.Errorf("auth: encode metadata: %w", err)
	}
	body = append(body, '\n')
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", "*")
		switch r.Method {
		case http.MethodGet, http.MethodHead:
			h.Set("Content-Type", "application/json")
			h.Set("Cache-Control", "public, max-age=3600")
			h.Set("X-Content-Type-Options", "nosniff")
			w.WriteHeader(http.StatusOK)
			if r.Method == http.MethodGet {
				_, _ = w.Write(body)
			}
		case http.MethodOptions:
			h.Set("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS")
			h.Set("Access-Control-Allow-Headers", "*")
			h.Set("Access-Control-Max-Age", "86400")
			w.WriteHeader(http.StatusNoContent)
		default:
			h.Set("Allow", "GET, HEAD, OPTIONS")
			writeJSONError(w, http.StatusMethodNotAllowed, errorBody{
				Error: CodeInvalidRequest, Description: "method not allowed",
			})
		}
	}), nil
}

// Mount validates md and registers MetadataHandler(md) on mux at the
// path-aware well-known path of md.Resource and, when that differs, at the
// root path WellKnownPrefix, so that clients of every MCP revision find it.
// The path-aware path is registered with the percent-encoding of the
// resource path, so it answers at exactly the URL MetadataURL returns.
// When one mux serves several resources, Mount the main one and register
// the others with mux.Handle(WellKnownPath(...), MetadataHandler(...)),
// since the root path can hold only one document.
//
// Mount never panics. It returns an error when md is invalid, when the
// resource path is not clean (ServeMux would redirect the metadata URL
// elsewhere) and when mux refuses a path, for example because it is
// already registered; in that last case a path registered before the
// refused one stays registered.
func Mount(mux *http.ServeMux, md *ProtectedResourceMetadata) error {
	meta, err := NewMetadata(md)
	if err != nil {
		return err
	}
	// ServeMux matches the escaped request path segment by segment and
	// unescapes each pattern segment, so the pattern must keep the
	// resource's escaping: "a%2Fb" is one segment, "a/b" two.
	if p := resourcePath(meta.Paths[0]); p != "" && p != cleanPath(p) {
		return fmt.Errorf("auth: mount metadata: resource path %q is not clean, so ServeMux would never serve it", p)
	}
	patterns := make([]string, len(meta.Paths))
	for i, p := range meta.Paths {
		patterns[i] = p
		if strings.HasSuffix(p, "/") {
			patterns[i] += "{$}" // exact match, not a subtree
		}
	}
	// A scratch mux first, so that a pattern ServeMux cannot parse leaves
	// mux untouched.
	for _, m := range []*http.ServeMux{http.NewServeMux(), mux} {
		for _, p := range patterns {
			if err := handle(m, p, meta.Handler); err != nil {
				return err
			}
		}
	}
	return nil
}

// cleanPath is p as ServeMux cleans request paths: path.Clean, keeping a
// trailing slash.
func cleanPath(p string) string {
	c := path.Clean(p)
	if strings.HasSuffix(p, "/") && c != "/" {
		c += "/"
	}
	return c
}

// handle registers h on mux at pattern and returns the error for which
// ServeMux.Handle panics: a pattern it cannot parse or one that conflicts
// with a registered pattern.
func handle(mux *http.ServeMux, pattern string, h http.Handler) (err error) {
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		if e, ok := r.(error); ok {
			err = fmt.Errorf("auth: mount metadata at %q: %w", pattern, e)
		} else {
			err = fmt.Errorf("auth: mount metadata at %q: %v", pattern, r)
		}
	}()
	mux.Handle(pattern, h)
	return nil
}
