package stdio

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// serveModern serves a 2026-07-28 request on the shared child, which
// speaks an initialize-era version: server/discover is answered from the
// child's initialize result, subscriptions/listen from the child's
// notifications (listen.go), and anything else goes to the child without
// 2026-07-28's _meta keys, its result marked complete with caching hints
// (https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/caching)
// and a missing resource's -32002 turned into -32602.
func (e *Engine) serveModern(ctx context.Context, call *httptransport.Call) (*jsonrpc.Message, error) {
	m := call.Request
	switch m.Method {
	case "server/discover":
		return e.discover(ctx, m.ID)
	case "subscriptions/listen":
		return e.serveListen(ctx, call)
	}
	params, err := stripModernMeta(m.Params)
	if err != nil {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: "+err.Error())
	}
	resp, err := e.forward(ctx, e.shared, call, params)
	if err != nil {
		return nil, err
	}
	return modernAnswer(m.Method, resp)
}

// codeResourceNotFound is the resource-not-found code before 2026-07-28.
const codeResourceNotFound = -32002

// modernAnswer makes an initialize-era answer a 2026-07-28 one.
func modernAnswer(method string, resp *jsonrpc.Message) (*jsonrpc.Message, error) {
	if resp.Error != nil {
		if resp.Error.Code == codeResourceNotFound {
			e := *resp.Error
			e.Code = jsonrpc.CodeInvalidParams
			resp.Error = &e
		}
		return resp, nil
	}
	res, err := object(resp.Result)
	if err != nil {
		return nil, fmt.Errorf("stdio: the child's result: %w", err)
	}
	if _, ok := res["resultType"]; !ok {
		res["resultType"] = json.RawMessage(`"complete"`)
	}
	if cacheable(method) {
		if _, ok := res["ttlMs"]; !ok {
			res["ttlMs"] = json.RawMessage("0")
		}
		if _, ok := res["cacheScope"]; !ok {
			res["cacheScope"] = json.RawMessage(`"private"`)
		}
	}
	raw, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	resp.Result = raw
	return resp, nil
}

// cacheable reports the methods whose complete results carry caching
// hints.
func cacheable(method string) bool {
	switch method {
	case "tools/list", "prompts/list", "resources/list", "resources/templates/list", "resources/read":
		return true
	}
	return false
}

// discover answers server/discover from the shared child's initialize
// result.
// https://modelcontextprotocol.io/specification/2026-07-28/server/discover
func (e *Engine) discover(ctx context.Context, id jsonrpc.ID) (*jsonrpc.Message, error) {
	c, err := e.shared.get(ctx)
	if err != nil {
		return nil, err
	}
	var init struct {
		Capabilities json.RawMessage `json:"capabilities"`
		ServerInfo   json.RawMessage `json:"serverInfo"`
		Instructions string          `json:"instructions,omitempty"`
	}
	if err := json.Unmarshal(c.initResult, &init); err != nil {
		return nil, fmt.Errorf("stdio: the child's initialize result: %w", err)
	}
	caps, err := sharedCaps(init.Capabilities)
	if err != nil {
		return nil, err
	}
	res := map[string]any{
		"resultType":        "complete",
		"supportedVersions": e.desc.Versions,
		"capabilities":      caps,
		"ttlMs":             0,
		"cacheScope":        "public",
	}
	if init.Instructions != "" {
		res["instructions"] = init.Instructions
	}
	if len(init.ServerInfo) > 0 {
		res["_meta"] = map[string]json.RawMessage{"io.modelcontextprotocol/serverInfo": init.ServerInfo}
	}
	raw, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	return jsonrpc.NewResponse(id, raw), nil
}
