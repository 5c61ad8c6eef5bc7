#!/usr/bin/env bash
# Scaled out: the conformance suite and the TypeScript clients, through a
# round-robin proxy without affinity, against two instances of the
# conformance fixtures sharing one real Redis (redisstore/cmd/conformance-pair).
# Scenarios whose fixtures keep state in one process are listed, with the
# reason, in scripts/scaleout-expected-failures.txt.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)

command -v redis-server >/dev/null || { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y redis-server; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/mcpmount-scaleout.XXXXXX")
REDIS_PID=
cleanup() {
  [ -n "$REDIS_PID" ] && kill "$REDIS_PID" 2>/dev/null && wait "$REDIS_PID" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT

# A free port for Redis: let the kernel pick one, then hand it over.
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()' 2>/dev/null || echo 16399)
redis-server --port "$PORT" --bind 127.0.0.1 --save "" --appendonly no --dir "$WORK" >"$WORK/redis.log" 2>&1 &
REDIS_PID=$!
for _ in $(seq 1 100); do
  redis-cli -p "$PORT" ping >/dev/null 2>&1 && break
  sleep 0.1
done
redis-cli -p "$PORT" ping >/dev/null

(cd redisstore && go build -o "$WORK/conformance-pair" ./cmd/conformance-pair)
export MCP_SERVER_BIN="$WORK/conformance-pair" MCP_PAIR_REDIS="127.0.0.1:$PORT"

echo "-- scaled out: TypeScript SDK clients, with a bearer token"
bash scripts/interop.sh
echo "-- scaled out: TypeScript SDK clients, without a token"
INTEROP_NO_TOKEN=1 bash scripts/interop.sh
echo "-- scaled out: conformance"
# No retry: the rare "terminated" of earlier runs was the test proxy's
# (golang/go#40747, fixed in examples/roundrobin; 40 runs in a row passed
# after it, where 4 of 44 had failed before).
export CONFORMANCE_EXPECTED_FAILURES="$ROOT/scripts/scaleout-expected-failures.txt"
bash scripts/conformance.sh
