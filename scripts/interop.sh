#!/usr/bin/env bash
# Runs the interop tests in interop/ (TS SDK v1 over Streamable HTTP and over
# legacy SSE, TS SDK v2 at 2026-07-28, the AI SDK's MCP client over 'http' and
# 'sse', a plain JSON-RPC client, mcp-remote in each transport strategy)
# against the example server in examples/conformance, with a random bearer
# token that the clients must send.
#
#   scripts/interop.sh
#
# Environment:
#   INTEROP_NODE      Node.js used to run the tests (default: find_node's, >= 22)
#   INTEROP_TIMEOUT   seconds allowed for the test run (default 300)
#   MCP_TOKEN         bearer token to use (default: random)
#   INTEROP_NO_TOKEN  set to 1 to run without any bearer token
#   MCP_SSE_URL, CONFORMANCE_URL_2026   override the detected endpoints (see era_urls in common.sh)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/common.sh
. "$ROOT/scripts/common.sh"

TIMEOUT=${INTEROP_TIMEOUT:-300}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/mcpmount-interop.XXXXXX")
# INTEROP_NO_TOKEN=1 runs the clients without a token against a server
# that requires none; otherwise the server requires MCP_TOKEN (random by default).
if [ "${INTEROP_NO_TOKEN:-}" = 1 ]; then
  unset MCP_TOKEN
  TOKEN_ARGS=()
else
  export MCP_TOKEN=${MCP_TOKEN:-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')}
  TOKEN_ARGS=(-token "$MCP_TOKEN")
fi

trap stop_server EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

command -v go >/dev/null || die "go not found"
ensure_node_modules
find_node

# The AI SDK's MCP client needs Node 22 or later, as find_node's choice is.
TEST_NODE=${INTEROP_NODE:-$NODE}

log "building examples/conformance..."
build_server "$WORK"
start_server "$WORK" "${TOKEN_ARGS[@]}"
era_urls
log "server: $SERVER_URL (SSE: $URL_SSE, 2026-07-28: $URL_MODERN); tests run with $TEST_NODE ($("$TEST_NODE" --version))"

rc=0
(
  cd "$ROOT"
  export MCP_URL=$URL_LEGACY MCP_SSE_URL=$URL_SSE MCP_URL_2026=$URL_MODERN
  # A file list rather than the directory: Node 22+ reads arguments as globs.
  timeout --kill-after=10 "$TIMEOUT" "$TEST_NODE" --test interop/*.test.mjs </dev/null
) || rc=$?
stop_server
[ "$rc" = 124 ] && log "interop tests timed out after ${TIMEOUT}s"
if [ "$rc" = 0 ]; then
  rm -rf "$WORK"
else
  log "server log: $WORK/server.log"
fi
exit "$rc"
