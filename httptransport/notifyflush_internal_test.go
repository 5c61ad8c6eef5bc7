package httptransport

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpmount/mcpmount/httptransport/internal/output"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// TestPendingNotificationSurvivesPark: a GET resuming a call's stream is
// attached, then parked (serveGet); notifications the engine sends between
// the two wait in net/http's buffer, which the hijack drops: they were
// lost (and a large one, half written, ran into the next event). They now
// go out before the connection is taken over.
func TestPendingNotificationSurvivesPark(t *testing.T) {
	t.Parallel()
	for _, size := range []int{100, 3000} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			h := New(NewTestEngine(), &Options{NotificationFlushDelay: time.Hour, KeepAlive: -1, HeaderFlushDelay: -1})
			defer func() {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				_ = h.Shutdown(ctx)
			}()
			st := h.newStream(nil, acceptance{sse: true}, output.Role{}) // a call's stream, its POST gone
			parked := make(chan bool, 1)
			gone := make(chan struct{})
			big := strings.Repeat("y", size)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if _, err := st.Attach(w, 0, false, true, nil); err != nil {
					t.Error(err)
					parked <- false
					return
				}
				_ = st.Send(jsonrpc.NewNotification("notifications/message", json.RawMessage(`{"data":"first"}`)))
				_ = st.Send(jsonrpc.NewNotification("notifications/message", json.RawMessage(`{"data":"`+big+`"}`)))
				parked <- h.park(w, r, st, false, func() { close(gone) })
			}))
			defer srv.Close()
			resp, err := http.Get(srv.URL)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if !<-parked {
				t.Fatal("not parked")
			}
			_ = st.Send(jsonrpc.NewNotification("notifications/message", json.RawMessage(`{"data":"after"}`)))
			st.Finish(jsonrpc.NewResponse(jsonrpc.Int64ID(1), json.RawMessage(`{}`)))
			body, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			<-gone
			msgs := Messages(t, Events(t, string(body)))
			var got []string
			for _, m := range msgs {
				if m.IsResponse() {
					got = append(got, "answer")
					continue
				}
				var p struct{ Data string }
				_ = json.Unmarshal(m.Params, &p)
				got = append(got, p.Data)
			}
			if want := []string{"first", big, "after", "answer"}; !slices.Equal(got, want) {
				t.Errorf("messages %.80q, want %.80q", got, want)
			}
		})
	}
}
