package sse

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// benchJSON is a typical small MCP response.
var benchJSON = []byte(`{"jsonrpc":"2.0","id":17,"result":{"content":[{"type":"text","text":"The weather in Paris is sunny, 21°C."}],"isError":false}}`)

func BenchmarkWriteEvent(b *testing.B) {
	big := bytes.Repeat(benchJSON, 4096/len(benchJSON)+1)
	for _, bc := range []struct {
		name string
		e    Event
	}{
		{"json", Event{Data: benchJSON}},
		{"json+id+name", Event{ID: "0f8fad5b-d9cb-469f-a165-70867728950e:17", Name: "message", Data: benchJSON}},
		{"json-4KiB", Event{ID: "17", Data: big}},
		{"multiline", Event{Data: []byte("line one\nline two\r\nline three\n")}},
		{"comment", Event{IsComment: true, Comment: "keep-alive"}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			rw := &discardWriter{header: make(http.Header)}
			w := NewWriter(rw)
			b.ReportAllocs()
			b.SetBytes(int64(len(bc.e.Data)))
			for b.Loop() {
				if err := w.WriteEvent(bc.e); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkReaderNext(b *testing.B) {
	var wire bytes.Buffer
	m := newMemWriter()
	if err := NewWriter(m).WriteEvent(Event{ID: "17", Name: "message", Data: benchJSON}); err != nil {
		b.Fatal(err)
	}
	const perRun = 1024
	for range perRun {
		wire.Write(m.body.Bytes())
	}
	src := bytes.NewReader(wire.Bytes())
	b.ReportAllocs()
	b.SetBytes(int64(m.body.Len()))
	rd := NewReader(src)
	n := 0
	for b.Loop() {
		if n == perRun {
			src.Reset(wire.Bytes())
			rd = NewReader(src)
			n = 0
		}
		if _, err := rd.Next(); err != nil {
			b.Fatal(err)
		}
		n++
	}
}

// BenchmarkStreamLoopback measures one event written by a handler and read
// by a client over a loopback HTTP/1.1 connection, for comparison with
// BenchmarkPlainHandlerLoopback.
func BenchmarkStreamLoopback(b *testing.B) {
	start := make(chan int)
	ts := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		SetHeaders(rw.Header())
		w := NewWriter(rw)
		// Send the headers so that the client's Get returns.
		if err := w.Flush(); err != nil {
			return
		}
		n := <-start
		e := Event{ID: "17", Data: benchJSON}
		for range n {
			if err := w.WriteEvent(e); err != nil {
				return
			}
		}
	}))
	defer ts.Close()
	resp, err := ts.Client().Get(ts.URL)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	rd := NewReader(resp.Body)
	b.ReportAllocs()
	b.ResetTimer()
	start <- b.N
	for range b.N {
		if _, err := rd.Next(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPlainHandlerLoopback measures one request to a plain net/http
// handler returning the same JSON over a kept-alive loopback connection: the
// cost of the non-streaming alternative.
func BenchmarkPlainHandlerLoopback(b *testing.B) {
	ts := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		rw.Header().Set("Content-Type", "application/json")
		rw.Write(benchJSON)
	}))
	defer ts.Close()
	c := ts.Client()
	b.ReportAllocs()
	for b.Loop() {
		resp, err := c.Post(ts.URL, "application/json", strings.NewReader(`{}`))
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}
