// Shared by the interop tests. Each test file connects one client flavour to
// the server named by the environment:
//
//   MCP_URL        Streamable HTTP endpoint (required; tests skip without it)
//   MCP_SSE_URL    legacy HTTP+SSE endpoint (default MCP_URL)
//   MCP_URL_2026   endpoint for the 2026-07-28 client (default MCP_URL)
//   MCP_TOKEN      optional bearer token sent on every request
//
// The server must offer the tools "progress" and "slow"/"slow_status" of
// examples/conformance. scripts/interop.sh starts that server and sets these.
import { randomUUID } from 'node:crypto';
import assert from 'node:assert/strict';

export const MCP_URL = process.env.MCP_URL || '';
export const MCP_SSE_URL = process.env.MCP_SSE_URL || MCP_URL;
export const MCP_URL_2026 = process.env.MCP_URL_2026 || MCP_URL;
export const skipWithoutServer = MCP_URL ? false : 'MCP_URL is not set (scripts/interop.sh sets it)';

export const clientInfo = (flavour) => ({ name: `mcpmount-interop-${flavour}`, version: '0.0.0' });

// authHeaders returns the Authorization header for MCP_TOKEN, if any.
export function authHeaders() {
  return process.env.MCP_TOKEN ? { Authorization: `Bearer ${process.env.MCP_TOKEN}` } : {};
}

export function textOf(result) {
  return (result?.content ?? [])
    .filter((c) => c.type === 'text')
    .map((c) => c.text)
    .join('\n');
}

export const newCallId = (flavour) => `${flavour}-${randomUUID()}`;

// waitFor polls check() until it returns true or timeoutMs passes.
export async function waitFor(what, check, timeoutMs = 5000, intervalMs = 25) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    try {
      if (await check()) return;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      assert.fail(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${last.message}` : ''}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

// Shared checks. callTool(name, args, options) adapts the flavour's client API;
// options carries onprogress and signal.

export const PROGRESS_COUNT = 5;

export async function checkProgress(callTool) {
  const updates = [];
  const result = await callTool('progress', { count: PROGRESS_COUNT, intervalMs: 20 }, {
    onprogress: (p) => updates.push(p),
  });
  assert.equal(textOf(result), `sent ${PROGRESS_COUNT} progress notifications`);
  assert.deepEqual(
    updates.map((p) => p.progress),
    Array.from({ length: PROGRESS_COUNT }, (_, i) => i + 1),
    'one progress notification per step, in order, before the result',
  );
  for (const p of updates) assert.equal(p.total, PROGRESS_COUNT);
}

// checkCancel starts a 30 s "slow" call, aborts it once the server reports it
// running, and checks that (1) the call rejects promptly on the client and
// (2) the server's handler saw the cancellation (slow_status = cancelled).
export async function checkCancel(callTool, flavour, { rejectWithinMs = 1000, serverWithinMs = 5000 } = {}) {
  const id = newCallId(flavour);
  const ac = new AbortController();
  const call = callTool('slow', { seconds: 30, id }, { signal: ac.signal });
  call.catch(() => {}); // observed below; avoid an unhandled rejection meanwhile

  await waitFor('the slow call to start on the server', async () =>
    textOf(await callTool('slow_status', { id })) === 'running');

  const abortedAt = Date.now();
  ac.abort(new Error('cancelled by the interop test'));
  await assert.rejects(call, 'an aborted call must reject');
  const elapsed = Date.now() - abortedAt;
  assert.ok(elapsed < rejectWithinMs, `the aborted call took ${elapsed} ms to reject`);

  await waitFor('the server to cancel the slow handler', async () =>
    textOf(await callTool('slow_status', { id })) === 'cancelled', serverWithinMs);

  // The connection is still usable afterwards.
  assert.equal(textOf(await callTool('slow_status', { id })), 'cancelled');
}

// SIMPLE_TEXT is what the fixture tool test_simple_text answers.
export const SIMPLE_TEXT = 'This is a simple text response for testing.';

// checkListAndCall lists the server's tools and calls test_simple_text
// through client's listTools() and callTool({ name, arguments }), which
// the TS SDK's Client and the AI SDK's MCP client both have.
export async function checkListAndCall(client) {
  const { tools } = await client.listTools();
  assert.ok(tools.some((t) => t.name === 'test_simple_text'), `tools/list names test_simple_text (got ${tools.length} tools)`);
  assert.equal(textOf(await client.callTool({ name: 'test_simple_text', arguments: {} })), SIMPLE_TEXT);
}
