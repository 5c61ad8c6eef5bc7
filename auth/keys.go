package auth

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"errors"
	"fmt"

	"github.com/golang-jwt/jwt/v5"
)

// minRSABits is the smallest RSA modulus accepted for signature checks.
const minRSABits = 2048

// keySource finds the verification key for a parsed, not yet verified
// token. Errors are *InvalidTokenError or *UnavailableError.
type keySource interface {
	key(ctx context.Context, t *jwt.Token) (any, error)
	close()
}

// keyRefresher is a keySource whose keys can be fetched again: for a token
// without "kid" whose signature no cached key verified.
type keyRefresher interface {
	refreshKeys(ctx context.Context) bool
}

// tokenKID returns the "kid" header of t. ok is false when there is none;
// err is set when it is present but not a string.
func tokenKID(t *jwt.Token) (kid string, ok bool, err error) {
	raw, present := t.Header["kid"]
	if !present {
		return "", false, nil
	}
	kid, isString := raw.(string)
	if !isString {
		return "", false, InvalidToken("malformed token", errors.New(`header "kid" is not a string`))
	}
	return kid, true, nil
}

// publicKey reduces a private key to its public half and returns public
// keys unchanged.
func publicKey(key any) any {
	switch k := key.(type) {
	case *rsa.PrivateKey:
		return &k.PublicKey
	case *ecdsa.PrivateKey:
		return &k.PublicKey
	case ed25519.PrivateKey:
		return k.Public()
	case *ed25519.PublicKey:
		if k != nil {
			return *k
		}
	}
	return key
}

// checkKeyForAlg reports whether key may verify signatures made with alg.
// This is what stops algorithm confusion: an RSA key is only ever used
// with RS*/PS*, an ECDSA key only with the ES* algorithm of its curve, an
// Ed25519 key only with EdDSA, and nothing is ever used with HMAC.
func checkKeyForAlg(alg string, key any) error {
	switch alg {
	case "RS256", "RS384", "RS512", "PS256", "PS384", "PS512":
		k, ok := key.(*rsa.PublicKey)
		if !ok {
			return fmt.Errorf("algorithm %s needs an RSA key, got %T", alg, key)
		}
		if k.N == nil || k.N.BitLen() < minRSABits {
			return fmt.Errorf("RSA key shorter than %d bits", minRSABits)
		}
		return nil
	case "ES256", "ES384", "ES512":
		k, ok := key.(*ecdsa.PublicKey)
		if !ok {
			return fmt.Errorf("algorithm %s needs an ECDSA key, got %T", alg, key)
		}
		want := map[string]elliptic.Curve{"ES256": elliptic.P256(), "ES384": elliptic.P384(), "ES512": elliptic.P521()}[alg]
		if k.Curve != want {
			return fmt.Errorf("algorithm %s needs curve %s", alg, want.Params().Name)
		}
		return nil
	case "EdDSA":
		if _, ok := key.(ed25519.PublicKey); !ok {
			return fmt.Errorf("algorithm EdDSA needs an Ed25519 key, got %T", key)
		}
		return nil
	}
	return fmt.Errorf("algorithm %q is not supported", alg)
}

// checkKeyType reports whether key is of a supported type and size.
func checkKeyType(key any) error {
	switch k := key.(type) {
	case *rsa.PublicKey:
		return checkKeyForAlg("RS256", k)
	case *ecdsa.PublicKey:
		switch k.Curve {
		case elliptic.P256(), elliptic.P384(), elliptic.P521():
			return nil
		}
		return errors.New("unsupported ECDSA curve")
	case ed25519.PublicKey:
		if len(k) != ed25519.PublicKeySize {
			return errors.New("malformed Ed25519 key")
		}
		return nil
	}
	return fmt.Errorf("unsupported key type %T", key)
}

// staticSource serves keys given at construction.
type staticSource struct {
	byKID map[string]any
}

func newStaticSource(keys map[string]crypto.PublicKey) (*staticSource, error) {
	s := &staticSource{byKID: make(map[string]any, len(keys))}
	for kid, k := range keys {
		pub := publicKey(k)
		if err := checkKeyType(pub); err != nil {
			return nil, fmt.Errorf("key %q: %w", kid, err)
		}
		s.byKID[kid] = pub
	}
	return s, nil
}

func (s *staticSource) key(_ context.Context, t *jwt.Token) (any, error) {
	alg := t.Method.Alg()
	kid, hasKID, err := tokenKID(t)
	if err != nil {
		return nil, err
	}
	if hasKID {
		k, ok := s.byKID[kid]
		if !ok {
			return nil, InvalidToken("unknown signing key", errors.New("no static key with the token's kid"))
		}
		if err := checkKeyForAlg(alg, k); err != nil {
			return nil, InvalidToken("signing key does not match algorithm", err)
		}
		return k, nil
	}
	var set jwt.VerificationKeySet
	for _, k := range s.byKID {
		if checkKeyForAlg(alg, k) == nil {
			set.Keys = append(set.Keys, k)
		}
	}
	if len(set.Keys) == 0 {
		return nil, InvalidToken("unknown signing key", fmt.Errorf("no static key fits algorithm %s", alg))
	}
	return set, nil
}

func (s *staticSource) close() {}
