package auth

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Error codes of RFC 6750 section 3.1, used in Challenge.Error.
const (
	// CodeInvalidRequest marks a malformed request (400).
	CodeInvalidRequest = "invalid_request"
	// CodeInvalidToken marks a token that is expired, revoked, malformed or
	// not meant for this resource (401).
	CodeInvalidToken = "invalid_token"
	// CodeInsufficientScope marks a valid token that lacks a scope the
	// request needs (403).
	CodeInsufficientScope = "insufficient_scope"
)

// maxDescription caps error_description so that it stays short.
const maxDescription = 200

// Challenge is one Bearer challenge of a WWW-Authenticate header (RFC 6750
// section 3, with the resource_metadata parameter of RFC 9728 section 5.1)
// together with the response status it belongs to. The zero value is the
// plain challenge for a request without credentials.
type Challenge struct {
	// Realm is the optional protection space; empty omits realm.
	Realm string
	// Error is one of the Code* constants, or empty for a request that
	// carried no bearer credentials.
	Error string
	// Description is a short human-readable reason. It is sanitised to the
	// characters RFC 6750 allows and cut to 200 bytes. It must not contain
	// token material.
	Description string
	// Scopes lists the scopes the request needs; empty omits scope.
	Scopes []string
	// ResourceMetadata is the absolute URL of the protected resource
	// metadata document; empty omits resource_metadata.
	ResourceMetadata string
}

// Status returns the HTTP status that goes with the challenge: 400 for
// invalid_request, 403 for insufficient_scope and 401 otherwise.
func (c *Challenge) Status() int {
	switch c.Error {
	case CodeInvalidRequest:
		return http.StatusBadRequest
	case CodeInsufficientScope:
		return http.StatusForbidden
	}
	return http.StatusUnauthorized
}

// String returns the WWW-Authenticate header value, for example
// `Bearer error="invalid_token", error_description="token expired",
// resource_metadata="https://h/.well-known/oauth-protected-resource/mcp"`.
// Parameters appear in the order realm, error, error_description,
// resource_metadata, scope.
func (c *Challenge) String() string {
	var b strings.Builder
	b.WriteString("Bearer")
	sep := " "
	param := func(name, value string) {
		if value == "" {
			return
		}
		b.WriteString(sep)
		b.WriteString(name)
		b.WriteString(`="`)
		b.WriteString(quoteSafe(value))
		b.WriteByte('"')
		sep = ", "
	}
	param("realm", c.Realm)
	param("error", c.Error)
	param("error_description", sanitizeDescription(c.Description))
	param("resource_metadata", c.ResourceMetadata)
	param("scope", strings.Join(c.Scopes, " "))
	return b.String()
}

// errorBody is the JSON body of every error response of this package.
type errorBody struct {
	Error       string `json:"error"`
	Description string `json:"error_description,omitempty"`
	Scope       string `json:"scope,omitempty"`
}

// WriteChallenge writes a complete challenge response: the WWW-Authenticate
// header, Access-Control-Expose-Headers so that browser clients can read it,
// Cache-Control: no-store and the status from c.Status. A challenge with an
// error code has a short JSON body, the OAuth error object such as
// {"error":"invalid_token","error_description":"token expired"}. A
// challenge without one, for a request that carried no credentials, has no
// body: RFC 6750 section 3.1 asks for no error code "or other error
// information" then, and the challenge itself (with resource_metadata, RFC
// 9728 section 5.1) is what starts the client's authorization.
func WriteChallenge(w http.ResponseWriter, c *Challenge) {
	h := w.Header()
	h.Set("WWW-Authenticate", c.String())
	h.Add("Access-Control-Expose-Headers", "WWW-Authenticate")
	if c.Error == "" {
		h.Set("Cache-Control", "no-store")
		w.WriteHeader(c.Status())
		return
	}
	writeJSONError(w, c.Status(), errorBody{
		Error:       c.Error,
		Description: sanitizeDescription(c.Description),
		Scope:       strings.Join(c.Scopes, " "),
	})
}

// writeUnavailable answers 503 with a Retry-After header in whole seconds.
func writeUnavailable(w http.ResponseWriter, retryAfter time.Duration) {
	secs := int64((retryAfter + time.Second - 1) / time.Second)
	w.Header().Set("Retry-After", strconv.FormatInt(max(secs, 1), 10))
	writeJSONError(w, http.StatusServiceUnavailable, errorBody{
		Error:       "temporarily_unavailable",
		Description: "token verification is temporarily unavailable",
	})
}

// writeJSONError writes status and body as application/json.
func writeJSONError(w http.ResponseWriter, status int, body errorBody) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	// The body is tiny and the status line is already out, so there is
	// nothing useful to do with a write error.
	_ = json.NewEncoder(w).Encode(body)
}

// sanitizeDescription keeps the characters RFC 6750 allows in
// error_description (%x20-21 / %x23-5B / %x5D-7E) and caps the length.
func sanitizeDescription(s string) string {
	var b strings.Builder
	for i := 0; i < len(s) && b.Len() < maxDescription; i++ {
		c := s[i]
		if c >= 0x20 && c <= 0x7e && c != '"' && c != '\\' {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// quoteSafe escapes the characters that would end or break a quoted-string.
// Values are validated or sanitised before, so this is a second line.
func quoteSafe(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c == 0x7f:
			// Drop control characters, which could split the header.
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
