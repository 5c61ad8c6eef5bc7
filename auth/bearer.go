package auth

import (
	"net/http"
	"strings"
)

// BearerToken extracts the access token from the Authorization header of r
// (RFC 6750 section 2.1). It never looks at the query string or the body:
// a token in ?access_token= counts as no token.
//
// It returns ErrNoToken when there is no Authorization header, when the
// header is empty, or when it uses another scheme (Basic, DPoP, ...). It
// returns an error matching ErrInvalidRequest when the request carries more
// than one Authorization header, when "Bearer" is followed by no token, or
// when the token is not a b64token. The scheme name is case-insensitive.
func BearerToken(r *http.Request) (string, error) {
	values := r.Header.Values("Authorization")
	switch len(values) {
	case 0:
		return "", ErrNoToken
	case 1:
	default:
		return "", &requestError{description: "more than one Authorization header"}
	}
	value := strings.TrimSpace(values[0])
	if value == "" {
		return "", ErrNoToken
	}
	scheme, rest, _ := strings.Cut(value, " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return "", ErrNoToken
	}
	token := strings.TrimLeft(rest, " ")
	if token == "" {
		return "", &requestError{description: "bearer token is empty"}
	}
	if !isB64Token(token) {
		return "", &requestError{description: "bearer token has invalid characters"}
	}
	return token, nil
}

// isB64Token reports whether s matches RFC 6750's
// b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"=".
func isB64Token(s string) bool {
	body := strings.TrimRight(s, "=")
	if body == "" {
		return false
	}
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == '-', c == '.', c == '_', c == '~', c == '+', c == '/':
		default:
			return false
		}
	}
	return true
}
