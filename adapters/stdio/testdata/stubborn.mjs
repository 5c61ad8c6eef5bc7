// A stdio MCP server that will not stop: it ignores the end of its stdin
// and SIGTERM (saying so on stderr), so only SIGKILL ends it. It writes a
// line that is not JSON-RPC before its first answer, and answers
// initialize, and every other request with an empty result.
import { createInterface } from 'node:readline';

process.on('SIGTERM', () => process.stderr.write('stubborn: got SIGTERM, staying\n'));
setInterval(() => {}, 1 << 30);

let first = true;
createInterface({ input: process.stdin }).on('line', (line) => {
  const msg = JSON.parse(line);
  if (msg.id === undefined) return;
  if (first) {
    process.stdout.write('this is not JSON-RPC\n');
    first = false;
  }
  const result = msg.method === 'initialize'
    ? { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'stubborn', version: '0' } }
    : {};
  process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result }) + '\n');
});
