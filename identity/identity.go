// Package identity carries the authenticated caller of an HTTP request from
// the authentication layer (package auth, or any middleware of your own) to
// the MCP transport and the engine behind it.
//
// It imports only the standard library so that the transport core can bind
// sessions to their owner without depending on any token format.
package identity

import (
	"context"
	"time"
)

// Info describes the principal that a verified credential names.
type Info struct {
	// Subject identifies the principal, unique within Issuer (JWT "sub").
	Subject string
	// Issuer is the authority that vouched for the credential (JWT "iss").
	// It may be empty for credentials without an issuer, such as API keys.
	Issuer string
	// Scopes are the scopes the credential grants.
	Scopes []string
	// Expiry is when the credential stops being valid; the zero value means
	// it does not expire.
	Expiry time.Time
	// Claims holds every claim of the credential, for handlers that need
	// more than the fields above. It may be nil.
	Claims map[string]any
}

// Owner returns the key that binds a session to this principal: the issuer
// and the subject together, so that equal subjects from two issuers never
// share sessions. A nil Info has the empty owner.
func (i *Info) Owner() string {
	if i == nil {
		return ""
	}
	return i.Issuer + "\x00" + i.Subject
}

// HasScope reports whether the credential grants scope.
func (i *Info) HasScope(scope string) bool {
	if i == nil {
		return false
	}
	for _, s := range i.Scopes {
		if s == scope {
			return true
		}
	}
	return false
}

type contextKey struct{}

// NewContext returns a copy of ctx that carries info.
func NewContext(ctx context.Context, info *Info) context.Context {
	return context.WithValue(ctx, contextKey{}, info)
}

// FromContext returns the Info stored in ctx by NewContext, or nil.
func FromContext(ctx context.Context) *Info {
	info, _ := ctx.Value(contextKey{}).(*Info)
	return info
}
