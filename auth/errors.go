package auth

import (
	"errors"
	"strings"
	"time"
)

// ErrInvalidToken is matched (with errors.Is) by every error that means the
// presented credential is not acceptable: malformed, badly signed, expired,
// not yet valid, issued by another issuer or for another audience. The
// middleware answers such errors with 401 and error="invalid_token".
var ErrInvalidToken = errors.New("auth: invalid token")

// ErrUnavailable is matched (with errors.Is) by every error that means the
// verifier could not decide, for example because the JWKS endpoint of the
// authorization server cannot be reached and no cached key fits the token.
// The middleware answers such errors with 503 and a Retry-After header.
var ErrUnavailable = errors.New("auth: token verification unavailable")

// ErrNoToken is returned by BearerToken when the request carries no bearer
// credentials: no Authorization header, an empty one, or one that uses
// another authentication scheme.
var ErrNoToken = errors.New("auth: no bearer token")

// ErrInvalidRequest is matched (with errors.Is) by the errors that
// BearerToken returns for a malformed Authorization header. The middleware
// answers them with 400 and error="invalid_request".
var ErrInvalidRequest = errors.New("auth: malformed authorization request")

// ErrClosed is wrapped in the UnavailableError that a JWTVerifier returns
// after Close.
var ErrClosed = errors.New("auth: verifier closed")

// InvalidTokenError reports why a token was rejected. Verifiers return it so
// that the middleware can put a short, safe reason into error_description.
type InvalidTokenError struct {
	// Description is the public reason sent to the client in
	// error_description. It must never contain the token or any part of it.
	Description string
	// Err is the underlying cause, for logs. It may be nil.
	Err error
}

// InvalidToken returns an *InvalidTokenError with the given public
// description and cause. The result matches ErrInvalidToken.
func InvalidToken(description string, err error) error {
	return &InvalidTokenError{Description: description, Err: err}
}

// Error returns the description followed by the cause, if any.
func (e *InvalidTokenError) Error() string {
	var b strings.Builder
	b.WriteString("auth: invalid token")
	if e.Description != "" {
		b.WriteString(": ")
		b.WriteString(e.Description)
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the underlying cause.
func (e *InvalidTokenError) Unwrap() error { return e.Err }

// Is reports whether target is ErrInvalidToken.
func (e *InvalidTokenError) Is(target error) bool { return target == ErrInvalidToken }

// UnavailableError reports that a verifier could not reach the information
// it needs to decide about a token. The middleware answers it with 503.
type UnavailableError struct {
	// RetryAfter is how long the client should wait before retrying. Zero
	// means the middleware uses Options.RetryAfter.
	RetryAfter time.Duration
	// Err is the underlying cause, for logs. It may be nil.
	Err error
}

// Unavailable returns an *UnavailableError with the given retry hint and
// cause. The result matches ErrUnavailable.
func Unavailable(retryAfter time.Duration, err error) error {
	return &UnavailableError{RetryAfter: retryAfter, Err: err}
}

// Error describes the failure and its cause.
func (e *UnavailableError) Error() string {
	if e.Err == nil {
		return ErrUnavailable.Error()
	}
	return ErrUnavailable.Error() + ": " + e.Err.Error()
}

// Unwrap returns the underlying cause.
func (e *UnavailableError) Unwrap() error { return e.Err }

// Is reports whether target is ErrUnavailable.
func (e *UnavailableError) Is(target error) bool { return target == ErrUnavailable }

// requestError is a malformed Authorization header. Its description is
// public and safe to send to the client.
type requestError struct {
	description string
}

func (e *requestError) Error() string {
	return ErrInvalidRequest.Error() + ": " + e.description
}

func (e *requestError) Is(target error) bool { return target == ErrInvalidRequest }
