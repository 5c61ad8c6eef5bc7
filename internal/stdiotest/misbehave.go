package stdiotest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

// request is a JSON-RPC request, or an answer to one of the child's
// (without a method), as the hand-written children read it.
type request struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
}

// keepServing is what answer returns in serveLines to go on.
const keepServing = -1

// serveLines reads requests from stdin, one a line, and writes to stdout
// the result answer gives each (notifications, and lines that are not
// JSON, are skipped; answer may write lines of its own to out before; it
// is given answers to its own requests too, whose result is not sent).
// An exit status other than keepServing ends the child at once with it;
// serveLines returns 0 when stdin ends.
func serveLines(answer func(req *request, out *bufio.Writer) (result string, exit int)) int {
	out := bufio.NewWriterSize(os.Stdout, 1<<16)
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 1<<20)
	for in.Scan() {
		var req request
		if json.Unmarshal(in.Bytes(), &req) != nil || req.ID == nil {
			continue
		}
		result, exit := answer(&req, out)
		if exit != keepServing {
			return exit
		}
		if req.Method == "" {
			continue
		}
		fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", req.ID, result)
		if out.Flush() != nil {
			return 1
		}
	}
	return 0
}

// floodStderr writes lines lines of size bytes to stderr.
func floodStderr(lines, size int) int {
	w := bufio.NewWriter(os.Stderr)
	line := strings.Repeat("x", size) + "\n"
	for range lines {
		if _, err := w.WriteString(line); err != nil {
			return 1
		}
	}
	if err := w.Flush(); err != nil {
		return 1
	}
	return 0
}

// stubborn is the Stubborn child.
func stubborn() int {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM)
	go func() {
		for range sigs {
			fmt.Fprintln(os.Stderr, "stubborn: got SIGTERM, staying")
		}
	}()
	first := true
	serveLines(func(req *request, out *bufio.Writer) (string, int) {
		if first {
			fmt.Fprintln(out, "this is not JSON-RPC")
			first = false
		}
		if req.Method == "initialize" {
			return `{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"stubborn","version":"0"}}`, keepServing
		}
		return `{}`, keepServing
	})
	select {} // stdin ended: stay, until SIGKILL
}
