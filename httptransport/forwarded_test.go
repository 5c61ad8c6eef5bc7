package httptransport

import (
	"net/http"
	"testing"
)

// TestClientAddrReadsForwardedPorts: behind a trusted proxy, the client's
// address is read from X-Forwarded-For entries written with a port or in
// brackets too, as some proxies write them; before, such an entry counted
// every client as the proxy, so one address's session bound held them all.
func TestClientAddrReadsForwardedPorts(t *testing.T) {
	t.Parallel()
	h := New(nil, &Options{TrustedProxies: []string{"10.0.0.0/8"}})
	for _, tc := range []struct {
		forwarded []string
		want      string
	}{
		{[]string{"198.51.100.7"}, "198.51.100.7"},
		{[]string{"198.51.100.7:41236"}, "198.51.100.7"},
		{[]string{"203.0.113.1, 198.51.100.7:41236, 10.0.0.9:80"}, "198.51.100.7"},
		{[]string{"[2001:db8:1:2::1]:4711"}, "2001:db8:1:2::/64"},
		{[]string{"[2001:db8:1:2::1]"}, "2001:db8:1:2::/64"},
		{[]string{"198.51.100.7", "10.0.0.3"}, "198.51.100.7"},
		{[]string{"not-an-address"}, "10.0.0.1"},
		{[]string{"[198.51.100.7"}, "10.0.0.1"},
		{[]string{"198.51.100.7:99999"}, "10.0.0.1"},
	} {
		r := &http.Request{RemoteAddr: "10.0.0.1:5000", Header: http.Header{"X-Forwarded-For": tc.forwarded}}
		if got := h.clientAddr(r); got != tc.want {
			t.Errorf("X-Forwarded-For %q: counted as %q, want %q", tc.forwarded, got, tc.want)
		}
	}
}
