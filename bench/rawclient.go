package bench

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"time"
)

// RawClient is a minimal HTTP/1.1 client on one keep-alive connection. It
// writes prebuilt request bytes and parses responses into reused buffers,
// so that it allocates nothing per request: in-process benchmarks then
// count (almost) only the server's allocations.
type RawClient struct {
	Conn net.Conn
	br   *bufio.Reader
	body []byte
	hdr  []byte // value of the last header asked for
}

// Dial connects a RawClient to addr (host:port).
func Dial(addr string) (*RawClient, error) { return DialSize(addr, 16<<10) }

// DialSize is Dial with a read buffer of the given size.
func DialSize(addr string, size int) (*RawClient, error) {
	c, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		return nil, err
	}
	return &RawClient{Conn: c, br: bufio.NewReaderSize(c, size)}, nil
}

// Close closes the connection with a reset, so that no TIME_WAIT state is
// left behind on loopback however many connections a run opens.
func (c *RawClient) Close() error {
	if tc, ok := c.Conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	return c.Conn.Close()
}

// Response is a parsed response; Body and SessionID are valid until the
// next call on the client.
type Response struct {
	Status    int
	Body      []byte
	SessionID []byte
	Chunked   bool
}

// Do writes req and reads the whole response.
func (c *RawClient) Do(req []byte) (Response, error) {
	if _, err := c.Conn.Write(req); err != nil {
		return Response{}, err
	}
	return c.read(true)
}

// Open writes req and reads the status line and headers only, leaving the
// body (a stream) unread.
func (c *RawClient) Open(req []byte) (Response, error) {
	if _, err := c.Conn.Write(req); err != nil {
		return Response{}, err
	}
	return c.read(false)
}

var (
	hContentLength = []byte("content-length:")
	hTransferEnc   = []byte("transfer-encoding:")
	hSessionID     = []byte("mcp-session-id:")
	chunkedToken   = []byte("chunked")
)

func (c *RawClient) read(body bool) (Response, error) {
	var r Response
	line, err := c.br.ReadSlice('\n')
	if err != nil {
		return r, err
	}
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) {
		return r, fmt.Errorf("bad status line %q", line)
	}
	r.Status = int(line[9]-'0')*100 + int(line[10]-'0')*10 + int(line[11]-'0')
	length := -1
	c.hdr = c.hdr[:0]
	for {
		line, err = c.br.ReadSlice('\n')
		if err != nil {
			return r, err
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			break
		}
		switch {
		case hasPrefixFold(line, hContentLength):
			n, err := strconv.Atoi(string(bytes.TrimSpace(line[len(hContentLength):])))
			if err != nil {
				return r, err
			}
			length = n
		case hasPrefixFold(line, hTransferEnc):
			r.Chunked = bytes.Contains(line, chunkedToken)
		case hasPrefixFold(line, hSessionID):
			c.hdr = append(c.hdr, bytes.TrimSpace(line[len(hSessionID):])...)
		}
	}
	r.SessionID = c.hdr
	if !body {
		return r, nil
	}
	c.body = c.body[:0]
	switch {
	case r.Chunked:
		for {
			n, err := c.chunkSize()
			if err != nil {
				return r, err
			}
			if n == 0 {
				// Trailers, then the blank line.
				for {
					line, err = c.br.ReadSlice('\n')
					if err != nil {
						return r, err
					}
					if len(bytes.TrimRight(line, "\r\n")) == 0 {
						break
					}
				}
				break
			}
			if err := c.readN(n + 2); err != nil {
				return r, err
			}
			c.body = c.body[:len(c.body)-2]
		}
	case length >= 0:
		if err := c.readN(length); err != nil {
			return r, err
		}
	default:
		return r, errors.New("response without a length")
	}
	r.Body = c.body
	return r, nil
}

// chunkSize reads a chunk-size line.
func (c *RawClient) chunkSize() (int, error) {
	line, err := c.br.ReadSlice('\n')
	if err != nil {
		return 0, err
	}
	line = bytes.TrimRight(line, "\r\n")
	if i := bytes.IndexByte(line, ';'); i >= 0 {
		line = line[:i]
	}
	n := 0
	for _, ch := range line {
		var d byte
		switch {
		case ch >= '0' && ch <= '9':
			d = ch - '0'
		case ch >= 'a' && ch <= 'f':
			d = ch - 'a' + 10
		case ch >= 'A' && ch <= 'F':
			d = ch - 'A' + 10
		default:
			return 0, fmt.Errorf("bad chunk size %q", line)
		}
		n = n*16 + int(d)
	}
	return n, nil
}

// readN appends the next n bytes of the response to c.body.
func (c *RawClient) readN(n int) error {
	start := len(c.body)
	if cap(c.body)-start < n {
		grown := make([]byte, start, start+n+4096)
		copy(grown, c.body)
		c.body = grown
	}
	c.body = c.body[:start+n]
	_, err := io.ReadFull(c.br, c.body[start:])
	return err
}

// ReadUntil reads a streamed body until it has seen want, or the deadline
// passes. It does not parse chunk framing: each event is written in one
// chunk, so an event's text is never split by a chunk header.
func (c *RawClient) ReadUntil(want []byte, deadline time.Time) error {
	_ = c.Conn.SetReadDeadline(deadline)
	defer c.Conn.SetReadDeadline(time.Time{})
	var tail []byte
	for {
		// Whatever is buffered first, then the socket.
		n := c.br.Buffered()
		if n == 0 {
			n = 1
		}
		buf, err := c.br.Peek(n)
		if err != nil && len(buf) == 0 {
			return err
		}
		tail = append(tail, buf...)
		_, _ = c.br.Discard(len(buf))
		if bytes.Contains(tail, want) {
			return nil
		}
		if len(tail) > len(want) {
			tail = append(tail[:0], tail[len(tail)-len(want):]...)
		}
	}
}

func hasPrefixFold(s, prefix []byte) bool {
	return len(s) >= len(prefix) && bytes.EqualFold(s[:len(prefix)], prefix)
}
