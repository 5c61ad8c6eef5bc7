package stdiotest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Name is the serverInfo name of the Go server (the reference server's is
// "mcp-servers/everything").
const Name = "mcpmount-stdiotest"

// DocURI is a static resource of both servers, a Markdown document.
const DocURI = "demo://resource/static/document/features.md"

// Cancelled is the message of the progress notification the Go server's
// trigger-long-running-operation sends when its call is cancelled: the
// sign, for a test, that the notifications/cancelled reached the child.
// (go-sdk answers a cancelled request all the same; the reference
// server's SDK does not answer it.)
const Cancelled = "cancelled"

// serveEverything serves newServer on stdin and stdout until stdin ends,
// after saying on stderr that it starts, as the reference server does.
// The client's capabilities decide which tools it offers, so it reads
// the initialize request first and hands the line on to the server.
func serveEverything(ctx context.Context) int {
	fmt.Fprintln(os.Stderr, "Starting the Go stand-in for the everything server (stdio)...")
	in := bufio.NewReader(os.Stdin)
	first, err := in.ReadBytes('\n')
	if err != nil {
		fmt.Fprintf(os.Stderr, "stdiotest: reading initialize: %v\n", err)
		return 1
	}
	var init struct {
		Params struct {
			Capabilities struct {
				Sampling, Roots json.RawMessage
			} `json:"capabilities"`
		} `json:"params"`
	}
	if err := json.Unmarshal(first, &init); err != nil {
		fmt.Fprintf(os.Stderr, "stdiotest: the first line is not initialize: %v\n", err)
		return 1
	}
	caps := init.Params.Capabilities
	server := newServer(caps.Sampling != nil, caps.Roots != nil)
	rest := struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(first), in), os.Stdin}
	if err := server.Run(ctx, &mcp.IOTransport{Reader: rest, Writer: os.Stdout}); err != nil {
		fmt.Fprintf(os.Stderr, "stdiotest: %v\n", err)
	}
	return 0
}

// newServer is a go-sdk server with the reference everything server's
// features that the tests use, under the same names and arguments:
// the tools echo, get-sum, trigger-long-running-operation,
// gzip-file-as-resource and toggle-subscriber-updates, and, for a client
// that declares sampling or roots, trigger-sampling-request and
// get-roots-list (the client's roots, asked for once it is initialized);
// DocURI and a resource template, with subscriptions; the prompt
// args-prompt.
func newServer(sampling, roots bool) *mcp.Server {
	st := &state{}
	server := mcp.NewServer(&mcp.Implementation{Name: Name, Version: "1.0.0"}, &mcp.ServerOptions{
		InitializedHandler: st.initialized,
		SubscribeHandler:   st.subscribe,
		UnsubscribeHandler: st.unsubscribe,
	})
	st.server = server
	addTools(server, st)
	if sampling {
		mcp.AddTool(server, &mcp.Tool{Name: "trigger-sampling-request", Description: "Asks the client to sample"}, sample)
	}
	if roots {
		st.wantsRoots = true
		mcp.AddTool(server, &mcp.Tool{Name: "get-roots-list", Description: "The client's roots"}, st.rootsList)
	}
	addResources(server)
	server.AddPrompt(&mcp.Prompt{Name: "args-prompt", Arguments: []*mcp.PromptArgument{{Name: "city", Required: true}, {Name: "state"}}}, argsPrompt)
	return server
}

// updateEvery is the pace of toggle-subscriber-updates' notifications
// (the reference server's is 5 s).
const updateEvery = 100 * time.Millisecond
