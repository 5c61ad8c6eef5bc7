#!/usr/bin/env bash
# CI leg for the soak (bench/cmd/soak): a mixed load of every era against
# the go-sdk engine, the mcp-go engine and two go-sdk instances sharing one
# real Redis behind a round-robin proxy, 40 s each, failing if a server's
# goroutines, live heap objects or RSS grow beyond noise under the load,
# or if what the load left (Redis keys included) is not gone once it has
# stopped and its idle sessions expired. About 3 minutes in all;
# the development guide says how to run the long one.
set -euo pipefail
cd "$(dirname "$0")/../.."

ROOT=$(pwd)
(cd bench && go mod download)
# shellcheck source=scripts/common.sh
. "$ROOT/scripts/common.sh"
redis_workdir soak

(cd bench && go build -o "$WORK/soak" ./cmd/soak)
"$WORK/soak" -redis "127.0.0.1:$REDIS_PORT"
