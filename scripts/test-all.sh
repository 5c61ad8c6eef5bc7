#!/usr/bin/env bash
# Tests every module of the repository, one after another: the root module
# (the README's `go test -race ./...`), then redisstore, adapters/mcpgo,
# otelmcp and bench, each in its own directory, as CI does. Go alone runs
# all of them but redisstore's, which start a real redis-server (and a
# Redis Cluster with redis-cli): Debian's redis-server package has both.
# The submodules need Go 1.26. Extra arguments go to every `go test`
# (-run, -count, -v). It stops at the first module that fails.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! { command -v redis-server && command -v redis-cli; } >/dev/null; then
  echo "test-all: redis-server and redis-cli must be on PATH for redisstore's tests (apt-get install redis-server)" >&2
  exit 2
fi

# module DIR FLAGS...: one module's tests.
module() {
  local dir=$1 start=$SECONDS
  shift
  echo "== $dir"
  (cd "$dir" && go test "$@" ./...)
  echo "-- $dir: $((SECONDS - start)) s"
}

module . -race "$@"
module redisstore -race "$@"
module adapters/mcpgo -race "$@"
module otelmcp -race "$@"
# The benchmark harness's tests drive the peers' servers without the race
# detector, as CI runs them; its benchmarks run with bench/run.sh.
module bench "$@"
echo "test-all: every module passed in $SECONDS s"
