package stdio_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/mcpmount/mcpmount/adapters/internal/adaptertest"
	"github.com/mcpmount/mcpmount/httptransport"
)

// TestInitializeNotificationFlood: initialize sent without an id, 2,000
// times from one address and 10,000 times from as many forwarded
// addresses, against default bounds, is refused at once in front of a
// stdio child as in front of the in-process engines (the child once
// answered it with a result carrying no id), and a client then gets a
// session.
func TestInitializeNotificationFlood(t *testing.T) {
	f := newFixtureWith(t, servers[0], nil, &httptransport.Options{TrustedProxies: []string{"127.0.0.1"}})
	adaptertest.CheckNotificationFlood(t, f.url, 2000, nil)
	adaptertest.CheckNotificationFlood(t, f.url, 10000, func(i int) http.Header {
		return http.Header{"X-Forwarded-For": {fmt.Sprintf("198.51.%d.%d", i/256%256, i%256)}}
	})
}
