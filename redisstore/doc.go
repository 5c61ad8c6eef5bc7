// Package redisstore keeps mcpmount's 2025-era sessions in Redis, so that
// instances behind a plain load balancer serve one another's sessions. Its
// Store is an httptransport.SessionStore (the session records), an
// httptransport.SessionRelay (a client's answer to a server-to-client
// request, or its notifications/cancelled, reaches the instance running
// the call, over Redis PUBLISH and SUBSCRIBE) and an
// httptransport.EventStore (a client resumes a dropped stream on any
// instance).
//
// Every instance builds its own Store on its own client and passes it as
// both Options.Sessions and Options.Events:
//
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
package redisstore
