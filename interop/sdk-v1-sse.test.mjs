// TypeScript SDK v1 (@modelcontextprotocol/sdk) over the legacy HTTP+SSE
// transport (2024-11-05: GET opens the stream, POSTs go to its endpoint).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { MCP_SSE_URL, authHeaders, checkCancel, checkProgress, clientInfo, skipWithoutServer } from './helpers.mjs';

describe('TS SDK v1 client over legacy HTTP+SSE', { skip: skipWithoutServer }, () => {
  let client;
  const callTool = (name, args, options = {}) =>
    client.callTool({ name, arguments: args }, undefined, options);

  before(async () => {
    client = new Client(clientInfo('v1-sse'));
    // requestInit headers go on both the GET (event stream) and the POSTs.
    const transport = new SSEClientTransport(new URL(MCP_SSE_URL), { requestInit: { headers: authHeaders() } });
    await client.connect(transport);
  });
  after(async () => {
    await client?.close();
  });

  it('completes the initialize handshake over SSE', () => {
    assert.ok(client.getServerVersion()?.name, 'server info received');
  });

  it('calls a tool and receives its progress notifications', () => checkProgress(callTool));

  it('cancels a slow call (notifications/cancelled) and errors promptly', () => checkCancel(callTool, 'v1-sse'));
});
