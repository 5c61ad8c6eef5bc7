package stdiotest

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// state is what the Go server keeps for its one client (a child serves
// one engine or one session): the client's roots, the resources it
// subscribed to, and whether their updates are being sent.
type state struct {
	server     *mcp.Server
	wantsRoots bool

	mu         sync.Mutex
	roots      []*mcp.Root
	rootsKnown bool // the client has answered roots/list
	subscribed map[string]bool
	stopUpdate context.CancelFunc // nil: no updates being sent
}

// initialized asks a client that has roots for them, as the reference
// server does once the client is initialized.
func (st *state) initialized(ctx context.Context, req *mcp.InitializedRequest) {
	if st.wantsRoots {
		go func() { _, _ = st.syncRoots(context.WithoutCancel(ctx), req.Session) }()
	}
}

// syncRoots returns the client's roots, asking for them unless it has
// them already.
func (st *state) syncRoots(ctx context.Context, ss *mcp.ServerSession) ([]*mcp.Root, error) {
	st.mu.Lock()
	roots, known := st.roots, st.rootsKnown
	st.mu.Unlock()
	if known {
		return roots, nil
	}
	res, err := ss.ListRoots(ctx, nil)
	if err != nil {
		fmt.Fprintf(os.Stderr, "stdiotest: roots/list: %v\n", err)
		return nil, fmt.Errorf("roots/list: %w", err)
	}
	st.mu.Lock()
	st.roots, st.rootsKnown = res.Roots, true
	st.mu.Unlock()
	return res.Roots, nil
}

func (st *state) subscribe(_ context.Context, req *mcp.SubscribeRequest) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.subscribed == nil {
		st.subscribed = make(map[string]bool)
	}
	st.subscribed[req.Params.URI] = true
	return nil
}

func (st *state) unsubscribe(_ context.Context, req *mcp.UnsubscribeRequest) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	delete(st.subscribed, req.Params.URI)
	return nil
}

// toggleUpdates starts, or stops, notifications/resources/updated for
// every subscribed resource, each updateEvery.
func (st *state) toggleUpdates(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.stopUpdate != nil {
		st.stopUpdate()
		st.stopUpdate = nil
		return textResult("Stopped simulated resource updates"), nil, nil
	}
	uctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	st.stopUpdate = stop
	go st.sendUpdates(uctx)
	return textResult("Started simulated resource updated notifications"), nil, nil
}

func (st *state) sendUpdates(ctx context.Context) {
	tick := time.NewTicker(updateEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		st.mu.Lock()
		var uris []string
		for uri := range st.subscribed {
			uris = append(uris, uri)
		}
		st.mu.Unlock()
		for _, uri := range uris {
			_ = st.server.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri})
		}
	}
}

type gzipArgs struct {
	Name string `json:"name"`
	Data string `json:"data"` // a base64 data: URI
}

// gzipAsResource adds the gzipped content of a data: URI as a resource
// (go-sdk tells the client its resource list changed) and links to it.
func (st *state) gzipAsResource(_ context.Context, _ *mcp.CallToolRequest, a gzipArgs) (*mcp.CallToolResult, any, error) {
	_, encoded, ok := strings.Cut(a.Data, ";base64,")
	if !ok || !strings.HasPrefix(a.Data, "data:") {
		return nil, nil, fmt.Errorf("data %.40q is not a base64 data: URI", a.Data)
	}
	raw, err := base64.StdEncoding.DecodeString(encoded)
	if err != nil {
		return nil, nil, fmt.Errorf("data: %w", err)
	}
	var blob bytes.Buffer
	zw := gzip.NewWriter(&blob)
	if _, err := zw.Write(raw); err != nil {
		return nil, nil, fmt.Errorf("gzip: %w", err)
	}
	if err := zw.Close(); err != nil {
		return nil, nil, fmt.Errorf("gzip: %w", err)
	}
	uri := "demo://resource/session/" + a.Name
	contents := &mcp.ResourceContents{URI: uri, MIMEType: "application/gzip", Blob: blob.Bytes()}
	st.server.AddResource(&mcp.Resource{URI: uri, Name: a.Name, MIMEType: "application/gzip"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{contents}}, nil
	})
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.ResourceLink{URI: uri, Name: a.Name, MIMEType: "application/gzip"}}}, nil, nil
}
