// A stdio MCP server that misbehaves on request, for the tests that bound
// the engine's logs. Its tools: "garbage" writes arguments.lines lines
// that are not JSON-RPC on stdout before its answer; "stderr" writes
// arguments.lines lines on stderr; "exit" ends the process at once. An
// initialize whose clientInfo.name is "exit-on-initialize" ends it too.
import { createInterface } from 'node:readline';
import { writeSync } from 'node:fs';

const send = (msg) => writeSync(1, JSON.stringify({ jsonrpc: '2.0', ...msg }) + '\n');

// lines writes n numbered lines of text to fd, in large writes.
function lines(fd, n, text) {
  let chunk = '';
  for (let i = 0; i < n; i++) {
    chunk += `${text} ${i}\n`;
    if (chunk.length > 1 << 16) {
      writeSync(fd, chunk);
      chunk = '';
    }
  }
  if (chunk) writeSync(fd, chunk);
}

const tools = ['garbage', 'stderr', 'exit'].map((name) => ({ name, inputSchema: { type: 'object' } }));

createInterface({ input: process.stdin }).on('line', (line) => {
  const msg = JSON.parse(line);
  if (msg.id === undefined) return;
  const params = msg.params ?? {};
  switch (msg.method) {
    case 'initialize':
      if (params.clientInfo?.name === 'exit-on-initialize') process.exit(1);
      return send({ id: msg.id, result: { protocolVersion: params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'noisy', version: '0' } } });
    case 'tools/list':
      return send({ id: msg.id, result: { tools } });
    case 'tools/call':
      switch (params.name) {
        case 'exit':
          process.exit(1);
        case 'garbage':
          lines(1, params.arguments?.lines ?? 0, 'this is not JSON-RPC');
          break;
        case 'stderr':
          lines(2, params.arguments?.lines ?? 0, 'noisy: a line on stderr');
          break;
      }
      return send({ id: msg.id, result: { content: [{ type: 'text', text: 'done' }] } });
  }
  send({ id: msg.id, result: {} });
});
