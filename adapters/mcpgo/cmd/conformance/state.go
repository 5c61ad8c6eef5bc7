package main

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// flow is what a multi-round tool keeps in its requestState: which tool
// issued it, the round, what earlier rounds learnt.
type flow struct {
	Tool    string            `json:"t"`
	Round   int               `json:"r"`
	Data    map[string]string `json:"d,omitempty"`
	Expires int64             `json:"x"`
}

// stateLife is how long a requestState is honoured.
const stateLife = 10 * time.Minute

// sealer makes requestState tamper-evident: the state is base64url JSON,
// a dot, and an HMAC-SHA256 of it under a key made at start-up. A client
// echoes it back verbatim; any other value fails verification (-32602).
type sealer struct{ key [32]byte }

func newSealer() *sealer {
	s := &sealer{}
	_, _ = rand.Read(s.key[:]) // crypto/rand.Read does not fail (Go 1.24+)
	return s
}

var enc = base64.RawURLEncoding

func (s *sealer) sum(body []byte) []byte {
	h := hmac.New(sha256.New, s.key[:])
	h.Write(body)
	return h.Sum(nil)
}

// seal returns fl as a requestState.
func (s *sealer) seal(fl flow) string {
	fl.Expires = time.Now().Add(stateLife).Unix()
	body, _ := json.Marshal(fl)
	return enc.EncodeToString(body) + "." + enc.EncodeToString(s.sum(body))
}

// open verifies a requestState issued for tool and returns its flow, or a
// -32602 error.
func (s *sealer) open(state, tool string) (flow, error) {
	fl, err := s.verify(state, tool)
	if err != nil {
		return flow{}, invalidParams("invalid requestState: %v", err)
	}
	return fl, nil
}

var errTampered = errors.New("integrity check failed")

func (s *sealer) verify(state, tool string) (flow, error) {
	b, m, ok := strings.Cut(state, ".")
	if !ok {
		return flow{}, errTampered
	}
	body, err1 := enc.DecodeString(b)
	mac, err2 := enc.DecodeString(m)
	if err1 != nil || err2 != nil || !hmac.Equal(mac, s.sum(body)) {
		return flow{}, errTampered
	}
	var fl flow
	if json.Unmarshal(body, &fl) != nil {
		return flow{}, errTampered
	}
	if fl.Tool != tool {
		return flow{}, fmt.Errorf("issued for %q", fl.Tool)
	}
	if time.Now().Unix() > fl.Expires {
		return flow{}, errors.New("expired")
	}
	return fl, nil
}
