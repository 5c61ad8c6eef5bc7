#!/usr/bin/env node
// Small HTTP probes used by scripts/conformance.sh and scripts/interop.sh to
// wait for the example server and to find which path serves which era.
//
//   node scripts/mcp-probe.mjs legacy URL   POST initialize (2025-11-25); ok on 2xx (the session is deleted again)
//   node scripts/mcp-probe.mjs modern URL   POST server/discover (2026-07-28); ok on 2xx with a result
//   node scripts/mcp-probe.mjs sse URL      GET; ok when the first SSE event is "endpoint" (2024-11-05)
//
// Exit status 0 means ok; the HTTP status (or the error) is printed on stdout.
// MCP_TOKEN, if set, is sent as a bearer token. Runs on Node 20 and later.

const [mode, url] = process.argv.slice(2);
if (!mode || !url) {
  console.error('usage: mcp-probe.mjs legacy|modern|sse URL');
  process.exit(2);
}
const auth = process.env.MCP_TOKEN ? { Authorization: `Bearer ${process.env.MCP_TOKEN}` } : {};
const timeout = () => AbortSignal.timeout(3000);

async function readJsonRpc(res) {
  const type = res.headers.get('content-type') ?? '';
  const body = await res.text();
  if (type.includes('text/event-stream')) {
    for (const line of body.split(/\r?\n/)) {
      if (!line.startsWith('data:')) continue;
      try {
        const msg = JSON.parse(line.slice(5));
        if (msg && ('result' in msg || 'error' in msg)) return msg;
      } catch {
        // not JSON (e.g. a priming event): keep looking
      }
    }
    return undefined;
  }
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

async function legacy() {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...auth },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'mcpmount-probe', version: '0' } },
    }),
    signal: timeout(),
  });
  const msg = await readJsonRpc(res);
  const session = res.headers.get('mcp-session-id');
  if (session) {
    await fetch(url, {
      method: 'DELETE',
      headers: { 'Mcp-Session-Id': session, 'MCP-Protocol-Version': '2025-11-25', ...auth },
      signal: timeout(),
    }).catch(() => {});
  }
  return { status: res.status, ok: res.ok && msg?.result !== undefined };
}

async function modern() {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': '2026-07-28',
      'Mcp-Method': 'server/discover',
      ...auth,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'server/discover',
      params: {
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
          'io.modelcontextprotocol/clientInfo': { name: 'mcpmount-probe', version: '0' },
        },
      },
    }),
    signal: timeout(),
  });
  const msg = await readJsonRpc(res);
  return { status: res.status, ok: res.ok && Array.isArray(msg?.result?.supportedVersions) };
}

async function sse() {
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), 3000);
  try {
    const res = await fetch(url, { headers: { Accept: 'text/event-stream', ...auth }, signal: ctl.signal });
    if (!res.ok || !(res.headers.get('content-type') ?? '').includes('text/event-stream')) {
      return { status: res.status, ok: false };
    }
    const reader = res.body.getReader();
    const dec = new TextDecoder();
    let buf = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += dec.decode(value, { stream: true });
      const end = buf.search(/\r?\n\r?\n/);
      if (end >= 0) {
        const event = buf.slice(0, end).split(/\r?\n/).find((l) => l.startsWith('event:'));
        return { status: res.status, ok: event?.slice(6).trim() === 'endpoint' };
      }
    }
    return { status: res.status, ok: false };
  } finally {
    clearTimeout(timer);
    ctl.abort();
  }
}

const probes = { legacy, modern, sse };
if (!probes[mode]) {
  console.error(`unknown probe ${mode}`);
  process.exit(2);
}
try {
  const { status, ok } = await probes[mode]();
  console.log(status);
  process.exit(ok ? 0 : 1);
} catch (err) {
  console.log(err?.cause?.code ?? err?.name ?? String(err));
  process.exit(1);
}
