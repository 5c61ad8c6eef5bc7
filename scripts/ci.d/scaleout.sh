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
# Through the proxy, about one run in ten has lost one scenario's first
# request to a connection the proxy closed ("terminated" in the suite's
# log); the cause is not found yet. Such a run is reported, then tried
# once more; a scenario that fails twice fails CI.
export CONFORMANCE_EXPECTED_FAILURES="$ROOT/scripts/scaleout-expected-failures.txt"
if ! bash scripts/conformance.sh; then
  echo "scaled out: conformance failed once (above); trying once more"
  bash scripts/conformance.sh
fi
