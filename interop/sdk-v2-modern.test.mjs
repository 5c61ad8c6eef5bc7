// TypeScript SDK v2 (@modelcontextprotocol/client) pinned to protocol
// 2026-07-28: stateless requests, per-request _meta, no session. Closing the
// response stream is the cancellation.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { MCP_URL_2026, authHeaders, checkCancel, checkProgress, clientInfo, skipWithoutServer } from './helpers.mjs';

describe('TS SDK v2 client at 2026-07-28', { skip: skipWithoutServer }, () => {
  let client;
  const callTool = (name, args, options = {}) => client.callTool({ name, arguments: args }, options);

  before(async () => {
    client = new Client(clientInfo('v2-2026'), { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    const transport = new StreamableHTTPClientTransport(new URL(MCP_URL_2026), {
      requestInit: { headers: authHeaders() },
    });
    await client.connect(transport);
  });
  after(async () => {
    await client?.close();
  });

  it('negotiates the 2026-07-28 (modern) era', () => {
    assert.equal(client.getProtocolEra(), 'modern');
    assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
  });

  it('calls a tool and receives its progress notifications', () => checkProgress(callTool));

  it('cancels a slow call (closing the stream) and errors promptly', () => checkCancel(callTool, 'v2-2026'));
});
