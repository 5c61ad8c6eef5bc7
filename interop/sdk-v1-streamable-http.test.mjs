// TypeScript SDK v1 (@modelcontextprotocol/sdk) over Streamable HTTP
// (2025-era session: initialize handshake, Mcp-Session-Id).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { MCP_URL, authHeaders, checkCancel, checkProgress, clientInfo, skipWithoutServer } from './helpers.mjs';

describe('TS SDK v1 client over Streamable HTTP', { skip: skipWithoutServer }, () => {
  let client;
  let transport;
  const callTool = (name, args, options = {}) =>
    client.callTool({ name, arguments: args }, undefined, options);

  before(async () => {
    client = new Client(clientInfo('v1-http'));
    transport = new StreamableHTTPClientTransport(new URL(MCP_URL), { requestInit: { headers: authHeaders() } });
    await client.connect(transport);
  });
  after(async () => {
    await transport?.terminateSession().catch(() => {});
    await client?.close();
  });

  it('negotiates a 2025-era session', () => {
    assert.ok(transport.sessionId, 'the server assigned an Mcp-Session-Id');
    assert.match(transport.protocolVersion ?? '', /^2025-/);
  });

  it('calls a tool and receives its progress notifications', () => checkProgress(callTool));

  it('cancels a slow call (notifications/cancelled) and errors promptly', () => checkCancel(callTool, 'v1-http'));
});
