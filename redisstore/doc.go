// Package redisstore keeps mcpmount's sessions in Redis, so that instances
// behind a plain load balancer, without sticky routing, serve one
// another's sessions. Its Store is an httptransport.SessionStore (the
// session records, read at each request so that state saved on one
// instance is the state every other serves with: SessionRefresher), an
// httptransport.SessionRelay (over Redis PUBLISH and SUBSCRIBE: a client's
// answer to a server-to-client request and its notifications/cancelled
// reach the instance running the call; the session's own messages reach
// the instance holding its GET stream; a 2024-11-05 client's POSTs reach
// the instance holding its event stream), an httptransport.EventStore
// (a client resumes a dropped stream on any instance) and an
// httptransport.Liveness (each instance's liveness record: when one stops,
// the others answer for its calls and streams).
//
// Every instance builds its own Store on its own client and passes it as
// both Options.Sessions and Options.Events:
//
//	redis.SetLogger(redisstore.NewClientLogger(logger)) // go-redis's own lines, bounded (ClientLogger)
//	client := redis.NewClient(&redis.Options{
//		Addr:                  "redis:6379",
//		ContextTimeoutEnabled: true, // commands end by the transport's deadlines
//	})
//	store := redisstore.New(client, nil)
//	h := httptransport.New(engine, &httptransport.Options{
//		Sessions: store,
//		Events:   store,
//	})
//	// ... serve h; h.Shutdown closes the store (Close), then:
//	_ = client.Close()
//
// Session records expire as the transport asks (SessionIdleTimeout after
// the last activity anywhere); events are bounded per session
// (Options.MaxBytesPerSession), and each stream's expire Options.EventTTL
// after its last event (the session's bookkeeping after the last event of
// any of its streams), so an instance that crashes leaves nothing behind
// for good.
//
// What stays per instance by nature: what the application does to one
// instance's MCP server. A tool, prompt or resource added at runtime on
// one instance is there only, and announced (list_changed) only by it; a
// resource change announced on one instance's server reaches the sessions
// subscribed through it, and announced on every instance, a session's
// stream may get it once from each instance that serves the session.
// Apply such changes on every instance. Calls in flight and held streams
// live on the instance holding their connection: a client that loses one
// resumes it (Last-Event-ID) on any instance, but a call goes on running
// where it started; if that instance stops, a client resuming the call
// elsewhere gets an error for it within twice the handlers'
// LivenessPeriod.
package redisstore
