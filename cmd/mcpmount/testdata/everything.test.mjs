// Interop of `mcpmount stdio` serving the reference "everything" stdio
// server with the TypeScript SDK clients: v1 over Streamable HTTP (a
// 2025-era session), v1 over legacy HTTP+SSE (2024-11-05) and v2 pinned to
// 2026-07-28. scripts/ci.d/stdio.sh starts mcpmount and sets:
//
//   MCP_URL     the endpoint (required: the tests fail without it)
//   MCP_TOKEN   the bearer token mcpmount requires, if any
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HTTPV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { Client as ClientV2, StreamableHTTPClientTransport as HTTPV2 } from '@modelcontextprotocol/client';

const MCP_URL = process.env.MCP_URL;
assert.ok(MCP_URL, 'MCP_URL is not set (scripts/ci.d/stdio.sh sets it)');
const headers = process.env.MCP_TOKEN ? { Authorization: `Bearer ${process.env.MCP_TOKEN}` } : {};
const info = (flavour) => ({ name: `mcpmount-stdio-${flavour}`, version: '0.0.0' });

const text = (result) => (result?.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');

const flavours = {
  'v1 Streamable HTTP': {
    connect: async () => {
      const client = new ClientV1(info('v1-http'));
      await client.connect(new HTTPV1(new URL(MCP_URL), { requestInit: { headers } }));
      return client;
    },
    call: (client, name, args, options) => client.callTool({ name, arguments: args }, undefined, options),
  },
  'v1 HTTP+SSE': {
    // The v1 client runs notification handlers in a microtask but answers
    // at once; its legacy EventSource dispatches the events of one network
    // read together. The everything server sends its last progress
    // notification just before the answer, so the two often arrive in one
    // read and the client drops that notification as "for an unknown
    // token": https://github.com/modelcontextprotocol/typescript-sdk/issues/2580
    // The stream carries it in order (adapters/stdio tests check every era).
    lastProgressRaces: true,
    connect: async () => {
      const client = new ClientV1(info('v1-sse'));
      await client.connect(new SSEClientTransport(new URL(MCP_URL), { requestInit: { headers } }));
      return client;
    },
    call: (client, name, args, options) => client.callTool({ name, arguments: args }, undefined, options),
  },
  'v2 at 2026-07-28': {
    connect: async () => {
      const client = new ClientV2(info('v2-2026'), { versionNegotiation: { mode: { pin: '2026-07-28' } } });
      await client.connect(new HTTPV2(new URL(MCP_URL), { requestInit: { headers } }));
      return client;
    },
    call: (client, name, args, options) => client.callTool({ name, arguments: args }, options),
  },
};

describe('mcpmount stdio auth', () => {
  it(process.env.MCP_TOKEN ? 'refuses a request without the token with 401' : 'serves a request without a token', async () => {
    const res = await fetch(MCP_URL, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: info('raw') } }),
    });
    if (process.env.MCP_TOKEN) {
      assert.equal(res.status, 401);
      assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer/);
    } else {
      assert.equal(res.status, 200);
      await res.body?.cancel();
    }
  });
});

for (const [flavour, f] of Object.entries(flavours)) {
  describe(`${flavour} through mcpmount stdio`, () => {
    let client;
    before(async () => {
      client = await f.connect();
    });
    after(async () => {
      await client?.close();
    });

    it('reaches the everything server', async () => {
      const { tools } = await client.listTools();
      const names = tools.map((t) => t.name);
      for (const want of ['echo', 'get-sum', 'trigger-long-running-operation']) {
        assert.ok(names.includes(want), `tools/list lacks ${want}: ${names}`);
      }
      assert.ok(text(await f.call(client, 'echo', { message: `hi from ${flavour}` })).includes(`hi from ${flavour}`));
    });

    it('gets the long-running tool progress', async () => {
      const updates = [];
      const result = await f.call(client, 'trigger-long-running-operation', { duration: 0.5, steps: 5 }, {
        onprogress: (p) => updates.push(p.progress),
      });
      assert.match(text(result), /completed/);
      const want = [1, 2, 3, 4, 5];
      if (f.lastProgressRaces && updates.length === 4) want.pop();
      assert.deepEqual(updates, want);
    });

    it('cancels a long call and is served after', async () => {
      const ac = new AbortController();
      const call = f.call(client, 'trigger-long-running-operation', { duration: 30, steps: 30 }, {
        signal: ac.signal,
        onprogress: () => ac.abort('test cancels'),
      });
      await assert.rejects(call);
      assert.match(text(await f.call(client, 'echo', { message: 'after' })), /after/);
    });

    it('reads a resource and gets a prompt', async () => {
      const read = await client.readResource({ uri: 'demo://resource/static/document/features.md' });
      assert.ok(read.contents[0].text.length > 0);
      const prompt = await client.getPrompt({ name: 'args-prompt', arguments: { city: 'Lyon' } });
      assert.match(prompt.messages[0].content.text, /Lyon/);
    });
  });
}
