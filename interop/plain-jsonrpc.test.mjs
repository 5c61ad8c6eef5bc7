// A plain JSON-RPC client: the custom-transport pattern of the AI SDK's
// MCP docs, widely copied. Each message is a fetch POST with only
// Content-Type: application/json (and the bearer token, if any): no Accept
// header of its own, no Mcp-Session-Id ever sent back. A 204 answer means
// "no body"; anything else is read as one JSON-RPC message.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createMCPClient } from '@ai-sdk/mcp';
import { MCP_URL, authHeaders, checkListAndCall, skipWithoutServer } from './helpers.mjs';

class PlainJSONRPCTransport {
  constructor(url, headers) {
    this.url = url;
    this.headers = headers;
    this.statuses = [];
  }

  async start() {}

  async send(message) {
    const response = await fetch(this.url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...this.headers },
      body: JSON.stringify(message),
    });
    this.statuses.push(response.status);
    if (response.status === 204) return;
    this.onmessage?.(await response.json());
  }

  async close() {
    this.onclose?.();
  }
}

describe('plain JSON-RPC client (the AI SDK custom-transport pattern)', { skip: skipWithoutServer }, () => {
  it('lists tools and calls one, every request after initialize without a session id', async () => {
    const transport = new PlainJSONRPCTransport(MCP_URL, authHeaders());
    const client = await createMCPClient({ transport, clientName: 'mcpmount-interop-plain' });
    try {
      await checkListAndCall(client);
    } finally {
      await client.close();
    }
    // initialize, notifications/initialized (204, no body), tools/list, tools/call
    assert.deepEqual(transport.statuses, [200, 204, 200, 200]);
  });
});
