#!/usr/bin/env bash
# CI leg for adapters/mcpgo (a module of its own): gofmt, vet and the race
# tests of the engine, then the TypeScript SDK interop tests (with and
# without a token) and the official conformance suite against the mcp-go
# fixture server (adapters/mcpgo/cmd/conformance), built once and run as
# MCP_SERVER_BIN.
set -euo pipefail
cd "$(dirname "$0")/../.."

echo "== mcpgo: install"
(cd adapters/mcpgo && go mod download)

echo "== mcpgo: static checks"
unformatted=$(gofmt -l adapters/mcpgo)
if [ -n "$unformatted" ]; then
  echo "gofmt would change:"; echo "$unformatted"; exit 1
fi
(cd adapters/mcpgo && go vet ./...)

echo "== mcpgo: tests"
(cd adapters/mcpgo && go test -race ./...)

echo "== mcpgo: fuzz whole exchanges (briefly)"
(cd adapters/mcpgo && go test -run '^$' -fuzz '^FuzzExchange$' -fuzztime "${FUZZTIME:-10s}" -fuzzminimizetime 0 . | tail -n 1)

bin=$(mktemp -d "${TMPDIR:-/tmp}/mcpgo-ci.XXXXXX")
trap 'rm -rf "$bin"' EXIT
(cd adapters/mcpgo && go build -o "$bin/server" ./cmd/conformance)

echo "== mcpgo: interop (TypeScript SDK clients), with a bearer token"
MCP_SERVER_BIN="$bin/server" bash scripts/interop.sh
echo "== mcpgo: interop, without a token"
INTEROP_NO_TOKEN=1 MCP_SERVER_BIN="$bin/server" bash scripts/interop.sh

echo "== mcpgo: conformance against one URL"
MCP_SERVER_BIN="$bin/server" \
  CONFORMANCE_EXPECTED_FAILURES="$PWD/adapters/mcpgo/conformance-expected-failures.txt" \
  bash scripts/conformance.sh
