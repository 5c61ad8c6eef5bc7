// The AI SDK's MCP client (@ai-sdk/mcp) with its built-in transports:
// 'http' (Streamable HTTP: it asks server/discover first and takes
// 2026-07-28; with discovery off it initializes a 2025-era session) and
// 'sse' (2024-11-05 HTTP+SSE, whose GET names MCP-Protocol-Version
// 2025-11-25, the SDK's newest 2025-era version, and no session).
import { describe, it } from 'node:test';
import { createMCPClient } from '@ai-sdk/mcp';
import { MCP_SSE_URL, MCP_URL, authHeaders, checkListAndCall, skipWithoutServer } from './helpers.mjs';

async function listAndCall(config) {
  const client = await createMCPClient({ clientName: 'mcpmount-interop-ai-sdk', ...config });
  try {
    await checkListAndCall(client);
  } finally {
    await client.close();
  }
}

describe('AI SDK MCP client', { skip: skipWithoutServer }, () => {
  it("lists tools and calls one over transport 'http'", () =>
    listAndCall({ transport: { type: 'http', url: MCP_URL, headers: authHeaders() } }));

  it("lists tools and calls one over transport 'http' in a 2025-era session", () =>
    listAndCall({ transport: { type: 'http', url: MCP_URL, headers: authHeaders() }, protocolVersionDiscovery: false }));

  it("lists tools and calls one over transport 'sse'", () =>
    listAndCall({ transport: { type: 'sse', url: MCP_SSE_URL, headers: authHeaders() } }));
});
