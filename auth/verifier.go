package auth

import (
	"context"

	"github.com/mcpmount/mcpmount/identity"
)

// Verifier checks an access token and names the principal it was issued to.
//
// Verify must return a non-nil *identity.Info and a nil error for an
// acceptable token. For an unacceptable token it returns an error that
// matches ErrInvalidToken (see InvalidToken); when it cannot decide, for
// example because a key server is down, an error that matches ErrUnavailable
// (see Unavailable). The middleware treats any other error like an invalid
// token, so that a verifier failure never lets a request through.
//
// Verify must honour ctx: it must give up when ctx is done. Implementations
// must be safe for concurrent use. JWTVerifier is the implementation for JWT
// access tokens; token introspection (RFC 7662) or API keys plug in through
// this interface or VerifierFunc.
type Verifier interface {
	Verify(ctx context.Context, token string) (*identity.Info, error)
}

// VerifierFunc adapts an ordinary function to the Verifier interface.
type VerifierFunc func(ctx context.Context, token string) (*identity.Info, error)

// Verify calls f(ctx, token).
func (f VerifierFunc) Verify(ctx context.Context, token string) (*identity.Info, error) {
	return f(ctx, token)
}
