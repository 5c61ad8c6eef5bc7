package roundrobin_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mcpmount/mcpmount/examples/roundrobin"
)

// backend is a target that answers with its name, the Host it saw and
// the body it read, with the body's length as sent.
func backend(t *testing.T, name string) *url.URL {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			t.Errorf("%s: reading the body: %v", name, err)
		}
		w.Header().Set("X-Length", r.Header.Get("Content-Length"))
		io.WriteString(w, name+" "+r.Host+" "+string(body))
	}))
	t.Cleanup(srv.Close)
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestTurns: requests go to the targets in turn, pinned ones to the
// first, and the Host header is the target's unless KeepHost.
func TestTurns(t *testing.T) {
	t.Parallel()
	a, b := backend(t, "a"), backend(t, "b")
	lb := httptest.NewServer(roundrobin.New([]*url.URL{a, b}, &roundrobin.Options{
		Pin: func(r *http.Request) bool { return r.URL.Query().Has("pin") },
	}))
	defer lb.Close()
	var got []string
	for _, q := range []string{"", "", "?pin", "?pin", ""} {
		got = append(got, strings.Fields(get(t, lb.URL+"/mcp"+q))[0])
	}
	if want := "a b a a a"; strings.Join(got, " ") != want {
		t.Errorf("targets %v, want %s", got, want)
	}
	if host := strings.Fields(get(t, lb.URL))[1]; host != a.Host && host != b.Host {
		t.Errorf("the target saw Host %q, want its own", host)
	}

	keep := httptest.NewServer(roundrobin.New([]*url.URL{a}, &roundrobin.Options{KeepHost: true}))
	defer keep.Close()
	if host, want := strings.Fields(get(t, keep.URL))[1], strings.TrimPrefix(keep.URL, "http://"); host != want {
		t.Errorf("with KeepHost the target saw Host %q, want the client's %q", host, want)
	}
}

// TestSkipsUnreachable: a request whose target refuses the connection (an
// instance that stopped) goes to the next target, its body whole; pinned
// ones too; with no target reachable the client gets 502.
func TestSkipsUnreachable(t *testing.T) {
	a, b := backend(t, "a"), backend(t, "b")
	gone := httptest.NewServer(http.NotFoundHandler())
	deadURL, err := url.Parse(gone.URL)
	if err != nil {
		t.Fatal(err)
	}
	gone.Close() // its port refuses connections now
	lb := httptest.NewServer(roundrobin.New([]*url.URL{deadURL, a, b}, &roundrobin.Options{
		Pin: func(r *http.Request) bool { return r.URL.Query().Has("pin") },
	}))
	defer lb.Close()
	var got []string
	for _, q := range []string{"", "", "", "?pin"} {
		resp, err := http.Post(lb.URL+"/mcp"+q, "application/json", strings.NewReader("body"))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fields := strings.Fields(string(body))
		if resp.StatusCode != http.StatusOK || len(fields) != 3 || fields[2] != "body" {
			t.Fatalf("POST %q: %d %q, want a live target's answer with the body", q, resp.StatusCode, body)
		}
		got = append(got, fields[0])
	}
	if want := "a b a a"; strings.Join(got, " ") != want {
		t.Errorf("targets %v, want %s (the unreachable first one skipped)", got, want)
	}

	none := httptest.NewServer(roundrobin.New([]*url.URL{deadURL, deadURL}, nil))
	defer none.Close()
	resp, err := http.Get(none.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway {
		t.Errorf("no target reachable: status %d, want 502", resp.StatusCode)
	}
}

// TestBodies: a body sent in chunks reaches the target whole, with its
// length; one over MaxBodyBytes gets 413 and reaches no target.
func TestBodies(t *testing.T) {
	t.Parallel()
	a := backend(t, "a")
	lb := httptest.NewServer(roundrobin.New([]*url.URL{a}, &roundrobin.Options{MaxBodyBytes: 10}))
	defer lb.Close()

	pr, pw := io.Pipe()
	go func() {
		io.WriteString(pw, "0123")
		io.WriteString(pw, "4567")
		pw.Close()
	}()
	resp, err := http.Post(lb.URL, "application/json", pr) // chunked: no length
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if got := strings.Fields(string(body)); len(got) != 3 || got[2] != "01234567" || resp.Header.Get("X-Length") != "8" {
		t.Errorf("the target read %q with Content-Length %q, want 01234567 and 8", body, resp.Header.Get("X-Length"))
	}

	resp, err = http.Post(lb.URL, "application/json", strings.NewReader("0123456789abc"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("a 13-byte body past a 10-byte bound: status %d, want 413", resp.StatusCode)
	}
}

// TestAnswerBeforeBodyEnds: an answer that starts while the proxy has
// read all of a request's body but not yet its end (the transport reads
// once more, to check the body's length) arrives whole. A proxy that
// passed the body on as it came would write the answer's start to the
// client, on which Go's server closes the request's body; the
// transport's last read would fail, and the transport close its
// connection to the target and cut the answer
// (https://github.com/golang/go/issues/40747; the client sees "unexpected
// EOF", a Node.js one "terminated"). That gap is a goroutine's scheduling
// on a busy machine; lateEOF makes it 100 ms.
func TestAnswerBeforeBodyEnds(t *testing.T) {
	t.Parallel()
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		io.WriteString(w, "got ") // an SSE answer's first event, at once
		w.(http.Flusher).Flush()
		time.Sleep(200 * time.Millisecond) // and its last, later
		io.WriteString(w, string(body))
	}))
	defer target.Close()
	u, _ := url.Parse(target.URL)
	lb := httptest.NewServer(lateEOF(roundrobin.New([]*url.URL{u}, nil)))
	defer lb.Close()

	resp, err := http.Post(lb.URL, "application/json", strings.NewReader("the request"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || string(body) != "got the request" {
		t.Errorf("answer %q, %v; want %q", body, err, "got the request")
	}
}

// lateEOF delays by 100 ms each read of a request's body that follows its
// last byte.
func lateEOF(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = &slowEnd{ReadCloser: r.Body, left: r.ContentLength}
		next.ServeHTTP(w, r)
	})
}

// slowEnd is a body whose reads past its last byte wait 100 ms.
type slowEnd struct {
	io.ReadCloser
	left int64
}

func (b *slowEnd) Read(p []byte) (int, error) {
	if b.left == 0 {
		time.Sleep(100 * time.Millisecond)
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	return n, err
}
