package stdio

import (
	"encoding/json"
	"errors"
	"strings"
)

// object decodes a JSON object into its members; empty raw is an empty
// object.
func object(raw json.RawMessage) (map[string]json.RawMessage, error) {
	m := make(map[string]json.RawMessage)
	if len(raw) == 0 || string(raw) == "null" {
		return m, nil
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	if m == nil {
		return nil, errors.New("not an object")
	}
	return m, nil
}

// setMember returns obj with member key set to value.
func setMember(obj json.RawMessage, key string, value json.RawMessage) (json.RawMessage, error) {
	m, err := object(obj)
	if err != nil {
		return nil, err
	}
	m[key] = value
	return json.Marshal(m)
}

// swapProgressToken replaces params._meta.progressToken, if there is one,
// by the string token, returning the one it replaced (nil if none, params
// then unchanged).
func swapProgressToken(params json.RawMessage, token string) (old, out json.RawMessage, err error) {
	if !strings.Contains(string(params), `"progressToken"`) {
		return nil, params, nil
	}
	p, err := object(params)
	if err != nil {
		return nil, nil, err
	}
	meta, err := object(p["_meta"])
	if err != nil {
		return nil, nil, errors.New("_meta is not an object")
	}
	old = meta["progressToken"]
	if old == nil {
		return nil, params, nil
	}
	meta["progressToken"], _ = json.Marshal(token)
	if p["_meta"], err = json.Marshal(meta); err != nil {
		return nil, nil, err
	}
	out, err = json.Marshal(p)
	return old, out, err
}

// modernMetaPrefix starts the _meta keys that carry 2026-07-28's
// per-request protocol version, capabilities and client information
// (https://modelcontextprotocol.io/specification/2026-07-28/basic#_meta),
// which a child speaking an earlier version has no use for.
const modernMetaPrefix = "io.modelcontextprotocol/"

// stripModernMeta removes the 2026-07-28 keys from params._meta.
func stripModernMeta(params json.RawMessage) (json.RawMessage, error) {
	if !strings.Contains(string(params), modernMetaPrefix) {
		return params, nil
	}
	p, err := object(params)
	if err != nil {
		return nil, err
	}
	meta, err := object(p["_meta"])
	if err != nil {
		return nil, errors.New("_meta is not an object")
	}
	for k := range meta {
		if strings.HasPrefix(k, modernMetaPrefix) {
			delete(meta, k)
		}
	}
	if len(meta) == 0 {
		delete(p, "_meta")
	} else if p["_meta"], err = json.Marshal(meta); err != nil {
		return nil, err
	}
	return json.Marshal(p)
}
