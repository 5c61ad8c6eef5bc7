// Package auth makes an MCP endpoint an OAuth 2.1 resource server: it
// checks bearer tokens, answers with RFC 6750 challenges that point to RFC
// 9728 protected resource metadata, and hands the verified caller to the
// transport through package identity.
//
// The pieces:
//
//   - Verifier checks a token and returns an *identity.Info. JWTVerifier
//     verifies JWT access tokens against the authorization server's JWKS
//     (or static keys); introspection or API keys plug in through
//     VerifierFunc.
//   - RequireBearer is net/http middleware. On success it stores the
//     *identity.Info with identity.NewContext, so the transport can bind
//     sessions to identity.FromContext(ctx).Owner().
//   - ProtectedResourceMetadata, MetadataHandler and Mount publish the RFC
//     9728 document at the path-aware and the root well-known paths.
//
// # Responses
//
//	Condition                                     Status  WWW-Authenticate: Bearer ...
//	no Authorization header, empty header,        401     resource_metadata=, scope= (if Scopes set), no error
//	  a non-Bearer scheme, or ?access_token= only
//	two Authorization headers, "Bearer" with no   400     error="invalid_request", error_description=, resource_metadata=
//	  token, token with forbidden characters
//	bad, expired, not yet valid, wrong issuer,    401     error="invalid_token", error_description=, resource_metadata=, scope=
//	  wrong audience, unknown key, alg none/HMAC,
//	  a JWS "crit" header
//	verifier unavailable (JWKS unreachable and    503     none; Retry-After: seconds
//	  no cached key fits, or a key ID not cached
//	  while its JWKS refresh is rate-limited)
//	valid token missing a required scope          403     error="insufficient_scope", error_description=, resource_metadata=, scope=<all scopes the request needs>
//	body to inspect larger than MaxBodyBytes      413     none
//	CORS preflight (OPTIONS + Origin +            -       passed to the next handler without a token
//	  Access-Control-Request-Method)
//
// Every error response but the plain 401 has a JSON body such as
// {"error":"invalid_token","error_description":"token expired"}; the plain
// 401 has none. Every challenge response exposes WWW-Authenticate to
// browser scripts through Access-Control-Expose-Headers.
//
// # Decisions
//
// A request that uses another scheme than Bearer gets the plain 401
// challenge, not 400: RFC 6750 section 3.1 treats an unsupported method like
// missing credentials, and the challenge starts the client's OAuth flow.
// A token in the query string is never read; with a valid header as well,
// the query is ignored.
//
// The plain 401 has no body. RFC 6750 section 3.1 asks that a request
// lacking authentication get no error code "or other error information",
// and its registry has no code for that case; a body such as
// {"error":"unauthorized"} would invent one. The challenge carries what a
// client needs: resource_metadata (RFC 9728 section 5.1) and scope.
//
// A verifier that cannot decide (ErrUnavailable) yields 503 with
// Retry-After rather than 401, so that clients do not throw away good
// tokens and restart OAuth during an authorization server outage. Any other
// verifier error, including errors of unknown type, yields 401
// invalid_token: the middleware fails closed.
//
// The scope parameter of a 401 lists Options.Scopes only: the body of an
// unauthenticated request is never read. A 403 lists every scope the
// request needs (Scopes, MethodScopes, ToolScopes), including those the
// token already has, as MCP 2026-07-28 asks for one complete challenge.
//
// To apply MethodScopes and ToolScopes the middleware reads POST bodies of
// authenticated requests up to MaxBodyBytes and gives the next handler a
// body with exactly the same bytes. Every "method" and "params"."name" value
// counts, including duplicate and case-variant keys and every element of a
// batch, so a parser that picks a different duplicate cannot slip past the
// check. A body that is not JSON passes through for the transport to
// reject; a body over the limit gets 413.
package auth
