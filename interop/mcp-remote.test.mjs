// mcp-remote, the stdio-to-HTTP proxy desktop apps launch for remote
// servers, in each of its transport strategies, driven over stdio by the
// TS SDK v1 client. http-first and http-only speak Streamable HTTP;
// sse-first and sse-only open the 2024-11-05 HTTP+SSE stream.
import { describe, it } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { MCP_URL, checkListAndCall, clientInfo, skipWithoutServer } from './helpers.mjs';

const proxy = fileURLToPath(new URL('../node_modules/mcp-remote/dist/proxy.js', import.meta.url));

async function viaProxy(strategy) {
  // mcp-remote keeps OAuth state in its config directory: a fresh one each
  // run, so nothing of an earlier run (or of the user's) is read.
  const configDir = mkdtempSync(join(tmpdir(), 'mcpmount-mcp-remote-'));
  const args = [proxy, MCP_URL, '--transport', strategy];
  if (process.env.MCP_TOKEN) args.push('--header', `Authorization:Bearer ${process.env.MCP_TOKEN}`);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args,
    env: { ...process.env, MCP_REMOTE_CONFIG_DIR: configDir },
    stderr: 'pipe',
  });
  let log = '';
  transport.stderr?.on('data', (chunk) => { log += chunk; });
  const client = new Client(clientInfo(`mcp-remote-${strategy}`));
  try {
    await client.connect(transport);
    await checkListAndCall(client);
  } catch (err) {
    err.message += `\nmcp-remote's log:\n${log}`;
    throw err;
  } finally {
    await client.close();
    rmSync(configDir, { recursive: true, force: true });
  }
}

describe('mcp-remote over stdio', { skip: skipWithoutServer }, () => {
  for (const strategy of ['http-first', 'http-only', 'sse-first', 'sse-only']) {
    it(`lists tools and calls one with --transport ${strategy}`, () => viaProxy(strategy));
  }
});
