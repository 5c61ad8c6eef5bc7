package roundrobin_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"

	"github.com/mcpmount/mcpmount/examples/roundrobin"
)

// Two instances behind one round-robin proxy: consecutive requests go to
// each in turn. In front of mcpmount instances, share their sessions
// through redisstore so that any of them can serve any request.
func ExampleNew() {
	var targets []*url.URL
	for _, name := range []string{"one", "two"} {
		instance := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, "instance "+name)
		}))
		defer instance.Close()
		u, _ := url.Parse(instance.URL)
		targets = append(targets, u)
	}
	lb := httptest.NewServer(roundrobin.New(targets, nil))
	defer lb.Close()

	for range 3 {
		resp, err := http.Get(lb.URL + "/mcp")
		if err != nil {
			fmt.Println(err)
			return
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Println(string(body))
	}
	// Output:
	// instance one
	// instance two
	// instance one
}
