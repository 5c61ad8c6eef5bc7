package mcpgo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// sessionKind tells what a session stands for.
type sessionKind int

const (
	kindCall    sessionKind = iota // one call (its own id, its own channel)
	kindListen                     // one 2026-07-28 subscriptions/listen
	kindLong                       // a 2025-era or 2024-11-05 session, registered while open here
	kindWatcher                    // the engine's own, seeing tool-list changes
)

// errNoRequests is returned for a server-to-client request where none can
// be sent.
var errNoRequests = errors.New("mcpgo: server-to-client requests are not available here")

// session is the mcp-go ClientSession the engine hands the server: one per
// call, per listen, and per 2025-era session open on this instance.
//
// A call's session starts from its session's stored state; what the call
// changes (initialize, logging/setLevel, resources/subscribe) is recorded
// and applied to the stored state when the call ends, and to the session's
// registered copy here at once.
type session struct {
	id   string
	kind sessionKind
	pipe *pipe
	long *session  // a call's session's registered copy on this instance, if any
	reqs *requests // nil where no request can be sent

	initialized atomic.Bool

	mu        sync.Mutex
	st        sessionState
	changes   []func(*sessionState) // a call's changes, for the stored state
	filter    mcp.SubscriptionFilter
	tools     map[string]server.ServerTool
	resources map[string]server.ServerResource
	templates map[string]server.ServerResourceTemplate
}

var (
	_ server.ClientSession                    = (*session)(nil)
	_ server.SessionWithLogging               = (*session)(nil)
	_ server.SessionWithClientInfo            = (*session)(nil)
	_ server.SessionWithResourceSubscriptions = (*session)(nil)
	_ server.SessionWithSampling              = (*session)(nil)
	_ server.SessionWithElicitation           = (*session)(nil)
	_ server.SessionWithRoots                 = (*session)(nil)
	_ server.SessionWithStreamableHTTPConfig  = (*session)(nil)
	_ server.SessionWithTools                 = (*session)(nil)
	_ server.SessionWithResources             = (*session)(nil)
	_ server.SessionWithResourceTemplates     = (*session)(nil)
	_ server.SessionWithSubscriptionFilter    = (*session)(nil)
	_ server.SessionWithProtocolVersion       = (*session)(nil)
)

// SessionID implements server.ClientSession: unique to the call (mcp-go
// keys in-flight requests by session id and request id).
func (s *session) SessionID() string { return s.id }

// NotificationChannel implements server.ClientSession.
func (s *session) NotificationChannel() chan<- mcp.JSONRPCNotification { return s.pipe.ch }

// Initialize implements server.ClientSession.
func (s *session) Initialize() {
	s.initialized.Store(true)
	if s.long != nil {
		s.long.initialized.Store(true)
	}
	s.update(func(st *sessionState) { st.Initialized = true })
}

// Initialized implements server.ClientSession.
func (s *session) Initialized() bool { return s.initialized.Load() }

// UpgradeToSSEWhenReceiveNotification implements
// server.SessionWithStreamableHTTPConfig: mcp-go calls it right before
// each send to the notification channel, and it waits for room there.
func (s *session) UpgradeToSSEWhenReceiveNotification() { s.pipe.reserve() }

// update applies f to the session's view, to the stored state when a call
// ends, and to the session's registered copy.
func (s *session) update(f func(*sessionState)) {
	s.mu.Lock()
	f(&s.st)
	if s.kind == kindCall {
		s.changes = append(s.changes, f)
	}
	s.mu.Unlock()
	if s.long != nil {
		s.long.update(f)
	}
}

// takeChanges returns the call's changes, once.
func (s *session) takeChanges() []func(*sessionState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.changes
	s.changes = nil
	return c
}

func (s *session) state() sessionState {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st.clone()
}

// SetLogLevel implements server.SessionWithLogging.
func (s *session) SetLogLevel(level mcp.LoggingLevel) {
	s.update(func(st *sessionState) { st.LogLevel = level })
}

// GetLogLevel implements server.SessionWithLogging: error until the client
// sets one, as mcp-go's own sessions.
func (s *session) GetLogLevel() mcp.LoggingLevel {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.st.LogLevel == "" {
		return mcp.LoggingLevelError
	}
	return s.st.LogLevel
}

// SetProtocolVersion records the version initialize negotiated (mcp-go
// calls it through an unexported interface of the same method).
func (s *session) SetProtocolVersion(version string) {
	s.update(func(st *sessionState) { st.ProtocolVersion = version })
}

// ProtocolVersion implements server.SessionWithProtocolVersion.
func (s *session) ProtocolVersion() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st.ProtocolVersion
}

// GetClientInfo implements server.SessionWithClientInfo.
func (s *session) GetClientInfo() mcp.Implementation {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.st.ClientInfo == nil {
		return mcp.Implementation{}
	}
	return *s.st.ClientInfo
}

// SetClientInfo implements server.SessionWithClientInfo.
func (s *session) SetClientInfo(info mcp.Implementation) {
	s.update(func(st *sessionState) { st.ClientInfo = &info })
}

// GetClientCapabilities implements server.SessionWithClientInfo.
func (s *session) GetClientCapabilities() mcp.ClientCapabilities {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.st.ClientCapabilities == nil {
		return mcp.ClientCapabilities{}
	}
	return *s.st.ClientCapabilities
}

// SetClientCapabilities implements server.SessionWithClientInfo.
func (s *session) SetClientCapabilities(caps mcp.ClientCapabilities) {
	s.update(func(st *sessionState) { st.ClientCapabilities = &caps })
}

// SubscribeToResource implements server.SessionWithResourceSubscriptions.
func (s *session) SubscribeToResource(uri string) {
	s.update(func(st *sessionState) {
		if !slices.Contains(st.Subscriptions, uri) {
			st.Subscriptions = append(st.Subscriptions, uri)
		}
	})
}

// UnsubscribeFromResource implements server.SessionWithResourceSubscriptions.
func (s *session) UnsubscribeFromResource(uri string) {
	s.update(func(st *sessionState) {
		st.Subscriptions = slices.DeleteFunc(st.Subscriptions, func(u string) bool { return u == uri })
	})
}

// SubscribedResources implements server.SessionWithResourceSubscriptions.
func (s *session) SubscribedResources() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.st.Subscriptions)
}

// IsSubscribedToResource implements server.SessionWithResourceSubscriptions.
func (s *session) IsSubscribedToResource(uri string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Contains(s.st.Subscriptions, uri)
}

// SetSubscriptionFilter implements server.SessionWithSubscriptionFilter.
func (s *session) SetSubscriptionFilter(filter mcp.SubscriptionFilter) {
	s.mu.Lock()
	s.filter = filter
	s.mu.Unlock()
}

// SubscriptionFilter implements server.SessionWithSubscriptionFilter: a
// listen's session is filtered for its whole life (it gets nothing before
// mcp-go records what the client asked for); other sessions are not.
func (s *session) SubscriptionFilter() (mcp.SubscriptionFilter, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.filter, s.kind == kindListen
}

// RequestSampling implements server.SessionWithSampling.
func (s *session) RequestSampling(ctx context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	if s.reqs == nil {
		return nil, errNoRequests
	}
	var res mcp.CreateMessageResult
	if err := s.reqs.do(ctx, string(mcp.MethodSamplingCreateMessage), req.CreateMessageParams, &res); err != nil {
		return nil, err
	}
	content, err := mcp.ParseSamplingContent(res.Content)
	if err != nil {
		return nil, fmt.Errorf("mcpgo: reading the sampling answer's content: %w", err)
	}
	res.Content = content
	return &res, nil
}

// RequestElicitation implements server.SessionWithElicitation.
func (s *session) RequestElicitation(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	if s.reqs == nil {
		return nil, errNoRequests
	}
	var res mcp.ElicitationResult
	if err := s.reqs.do(ctx, string(mcp.MethodElicitationCreate), req.Params, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// ListRoots implements server.SessionWithRoots.
func (s *session) ListRoots(ctx context.Context, req mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	if s.reqs == nil {
		return nil, errNoRequests
	}
	var params any = json.RawMessage("{}")
	if req.Params.Meta != nil {
		params = req.Params
	}
	var res mcp.ListRootsResult
	if err := s.reqs.do(ctx, string(mcp.MethodListRoots), params, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// The per-session tools, resources and templates (MCPServer.AddSessionTool
// and the like) live on the session's registered copy: a call's session
// reads and writes that copy's.
func (s *session) owner() *session {
	if s.long != nil {
		return s.long
	}
	return s
}

// GetSessionTools implements server.SessionWithTools.
func (s *session) GetSessionTools() map[string]server.ServerTool {
	o := s.owner()
	o.mu.Lock()
	defer o.mu.Unlock()
	return maps.Clone(o.tools)
}

// SetSessionTools implements server.SessionWithTools.
func (s *session) SetSessionTools(tools map[string]server.ServerTool) {
	o := s.owner()
	o.mu.Lock()
	o.tools = maps.Clone(tools)
	o.mu.Unlock()
}

// GetSessionResources implements server.SessionWithResources.
func (s *session) GetSessionResources() map[string]server.ServerResource {
	o := s.owner()
	o.mu.Lock()
	defer o.mu.Unlock()
	return maps.Clone(o.resources)
}

// SetSessionResources implements server.SessionWithResources.
func (s *session) SetSessionResources(resources map[string]server.ServerResource) {
	o := s.owner()
	o.mu.Lock()
	o.resources = maps.Clone(resources)
	o.mu.Unlock()
}

// GetSessionResourceTemplates implements server.SessionWithResourceTemplates.
func (s *session) GetSessionResourceTemplates() map[string]server.ServerResourceTemplate {
	o := s.owner()
	o.mu.Lock()
	defer o.mu.Unlock()
	return maps.Clone(o.templates)
}

// SetSessionResourceTemplates implements server.SessionWithResourceTemplates.
func (s *session) SetSessionResourceTemplates(templates map[string]server.ServerResourceTemplate) {
	o := s.owner()
	o.mu.Lock()
	o.templates = maps.Clone(templates)
	o.mu.Unlock()
}
