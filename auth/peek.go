package auth

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// DefaultMaxBodyBytes is the default limit on a request body that the
// middleware reads to find JSON-RPC methods and tool names. It matches the
// usual 4 MiB limit of MCP transports.
const DefaultMaxBodyBytes int64 = 4 << 20

// errBodyTooLarge is returned by peekBody when the body exceeds the limit.
var errBodyTooLarge = errors.New("request body exceeds the limit")

// rpcCall is what the scope check needs to know about one JSON-RPC message.
// Every candidate value is kept, so duplicate or case-variant keys (which
// encoding/json resolves to the last match, case-insensitively) can never
// hide a method or a tool name from the check.
type rpcCall struct {
	methods []string
	tools   []string // params.name candidates
}

// peekBody reads the whole body of r, up to limit bytes, and puts back a
// body that yields exactly the same bytes, so the next handler reads it
// unchanged. The original body is still closed by the server as usual.
func peekBody(r *http.Request, limit int64) ([]byte, error) {
	orig := r.Body
	data, err := io.ReadAll(io.LimitReader(orig, limit+1))
	r.Body = &replayBody{Reader: bytes.NewReader(data), closer: orig}
	if err != nil {
		return nil, fmt.Errorf("read request body: %w", err)
	}
	if int64(len(data)) > limit {
		return nil, errBodyTooLarge
	}
	return data, nil
}

// replayBody replays peeked bytes and closes the original body.
type replayBody struct {
	io.Reader
	closer io.Closer
}

func (b *replayBody) Close() error { return b.closer.Close() }

// scanRPC lists the JSON-RPC messages of body: a single object, a batch
// array, or (to stay on the safe side of lenient decoders) several
// concatenated values. It stops at the first syntax error and returns what
// it found so far; a body that is not JSON yields nothing.
func scanRPC(body []byte) []rpcCall {
	dec := json.NewDecoder(bytes.NewReader(body))
	var calls []rpcCall
	for {
		tok, err := dec.Token()
		if err != nil || !scanValue(dec, tok, &calls, true) {
			return calls
		}
	}
}

// scanValue reads the value whose first token tok was just read: an
// object is a message; an array is a batch of messages where batch is
// set, and skipped inside a batch. Other values are ignored. It reports
// false on a syntax error.
func scanValue(dec *json.Decoder, tok json.Token, calls *[]rpcCall, batch bool) bool {
	switch tok {
	case json.Delim('{'):
		return collect(dec, calls)
	case json.Delim('['):
		if !batch {
			return skipRest(dec) == nil
		}
		for dec.More() {
			tok, err := dec.Token()
			if err != nil || !scanValue(dec, tok, calls, false) {
				return false
			}
		}
		_, err := dec.Token()
		return err == nil
	}
	return true
}

// collect appends the message whose '{' was just read; it reports false
// when the message ended in a syntax error.
func collect(dec *json.Decoder, calls *[]rpcCall) bool {
	call, err := scanMessage(dec)
	*calls = append(*calls, call)
	return err == nil
}

// scanMessage reads one JSON-RPC object whose '{' was consumed, collecting
// every "method" value and every "params"."name" value. Keys are matched
// case-insensitively, like encoding/json does.
func scanMessage(dec *json.Decoder) (rpcCall, error) {
	var call rpcCall
	for dec.More() {
		key, err := objectKey(dec)
		if err != nil {
			return call, err
		}
		switch {
		case strings.EqualFold(key, "method"):
			s, ok, err := stringValue(dec)
			if err != nil {
				return call, err
			}
			if ok {
				call.methods = append(call.methods, s)
			}
		case strings.EqualFold(key, "params"):
			names, err := scanParams(dec)
			call.tools = append(call.tools, names...)
			if err != nil {
				return call, err
			}
		default:
			if err := skipValue(dec); err != nil {
				return call, err
			}
		}
	}
	_, err := dec.Token() // '}'
	return call, err
}

// scanParams reads a params value and returns its "name" candidates.
func scanParams(dec *json.Decoder) ([]string, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
	case json.Delim('['):
		return nil, skipRest(dec)
	default:
		return nil, nil // scalar, already consumed
	}
	var names []string
	for dec.More() {
		key, err := objectKey(dec)
		if err != nil {
			return names, err
		}
		if !strings.EqualFold(key, "name") {
			if err := skipValue(dec); err != nil {
				return names, err
			}
			continue
		}
		s, ok, err := stringValue(dec)
		if err != nil {
			return names, err
		}
		if ok {
			names = append(names, s)
		}
	}
	_, err = dec.Token() // '}'
	return names, err
}

// objectKey reads the next object key.
func objectKey(dec *json.Decoder) (string, error) {
	tok, err := dec.Token()
	if err != nil {
		return "", err
	}
	key, ok := tok.(string)
	if !ok {
		return "", fmt.Errorf("unexpected token %v where an object key belongs", tok)
	}
	return key, nil
}

// stringValue reads the next value and reports it if it is a string.
func stringValue(dec *json.Decoder) (string, bool, error) {
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return "", false, err
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false, nil
	}
	return s, true, nil
}

// skipValue reads and discards the next value.
func skipValue(dec *json.Decoder) error {
	var raw json.RawMessage
	return dec.Decode(&raw)
}

// skipRest discards the remaining elements of an array whose '[' was
// consumed, and its closing ']'. It must not be used inside an object.
func skipRest(dec *json.Decoder) error {
	for dec.More() {
		if err := skipValue(dec); err != nil {
			return err
		}
	}
	_, err := dec.Token()
	return err
}
