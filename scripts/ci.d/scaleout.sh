#!/usr/bin/env bash
# Scaled out: the conformance suite and the TypeScript clients, through a
# round-robin proxy without affinity, against two instances of the
# conformance fixtures sharing one real Redis (redisstore/cmd/conformance-pair).
# Scenarios whose fixtures keep state in one process are listed, with the
# reason, in scripts/scaleout-expected-failures.txt.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)

# shellcheck source=scripts/common.sh
. "$ROOT/scripts/common.sh"
redis_workdir scaleout
PORT=$REDIS_PORT

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
