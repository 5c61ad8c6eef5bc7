package stdiotest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// noisyParams are the params of the Noisy child's requests it reads.
type noisyParams struct {
	ProtocolVersion string `json:"protocolVersion"`
	ClientInfo      struct {
		Name string `json:"name"`
	} `json:"clientInfo"`
	Name      string `json:"name"`
	Arguments struct {
		Lines int `json:"lines"`
	} `json:"arguments"`
}

// noisy is the Noisy child.
func noisy() int {
	return serveLines(func(req *request, out *bufio.Writer) (string, int) {
		if req.Method == "" { // an answer to "ask"
			b, _ := json.Marshal(req)
			fmt.Fprintf(os.Stderr, "noisy: answered: %s\n", b)
			return "", keepServing
		}
		var p noisyParams
		_ = json.Unmarshal(req.Params, &p)
		switch req.Method {
		case "initialize":
			if p.ClientInfo.Name == "exit-on-initialize" {
				return "", 1
			}
			v, _ := json.Marshal(p.ProtocolVersion)
			return `{"protocolVersion":` + string(v) + `,"capabilities":{"tools":{}},"serverInfo":{"name":"noisy","version":"0"}}`, keepServing
		case "tools/list":
			return `{"tools":[{"name":"garbage","inputSchema":{"type":"object"}},{"name":"stderr","inputSchema":{"type":"object"}},{"name":"exit","inputSchema":{"type":"object"}},{"name":"ask","inputSchema":{"type":"object"}}]}`, keepServing
		case "tools/call":
			switch p.Name {
			case "exit":
				return "", 1
			case "garbage":
				numbered(out, p.Arguments.Lines, "this is not JSON-RPC")
			case "stderr":
				numbered(os.Stderr, p.Arguments.Lines, "noisy: a line on stderr")
			case "ask":
				fmt.Fprintln(out, `{"jsonrpc":"2.0","id":"ask","method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":10}}`)
			}
			return `{"content":[{"type":"text","text":"done"}]}`, keepServing
		}
		return `{}`, keepServing
	})
}

// numbered writes n numbered lines of text to w.
func numbered(w io.Writer, n int, text string) {
	b := bufio.NewWriterSize(w, 1<<16)
	for i := range n {
		fmt.Fprintf(b, "%s %d\n", text, i)
	}
	_ = b.Flush()
}
