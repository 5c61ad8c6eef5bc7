// TypeScript SDK v1 (@modelcontextprotocol/sdk) against a mount whose held
// streams the server ends every 300 ms (MaxStreamDuration, /mcp-short of
// examples/conformance): the client reconnects its GET stream each time,
// keeps its session, and still receives what the server sends afterwards.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { MCP_URL, authHeaders, clientInfo, skipWithoutServer, textOf, waitFor } from './helpers.mjs';

const shortURL = () => {
  const u = new URL(MCP_URL);
  u.pathname = u.pathname.replace(/\/mcp$/, '/mcp-short');
  return u;
};

describe('TS SDK v1 client whose streams the server ends', { skip: skipWithoutServer }, () => {
  let client;
  let transport;
  let changes = 0;
  const errors = [];

  before(async () => {
    client = new Client(clientInfo('v1-stream-life'));
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => { changes++; });
    transport = new StreamableHTTPClientTransport(shortURL(), { requestInit: { headers: authHeaders() } });
    transport.onerror = (e) => errors.push(e);
    await client.connect(transport);
  });
  after(async () => {
    await transport?.terminateSession().catch(() => {});
    await client?.close();
  });

  it('keeps its session through many stream ends and gets a later list change', async () => {
    assert.match(transport.protocolVersion ?? '', /^2025-11-25$/);
    await new Promise((r) => setTimeout(r, 3000)); // some ten ends of the GET stream
    await client.callTool({ name: 'test_trigger_tool_change', arguments: {} });
    await waitFor('tools/list_changed after the stream ends', () => changes > 0, 10000);
    const res = await client.callTool({ name: 'test_simple_text', arguments: {} });
    assert.ok(textOf(res).length > 0, 'a call after the stream ends answers');
  });
});
