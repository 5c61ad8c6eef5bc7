#!/usr/bin/env bash
# Runs the root module's whole suite RUNS times in a row (default 5) while
# a CPU burner keeps every core busy, and fails if any run fails: the
# suite must not hang on the machine's timing. Usage:
#   scripts/loaded.sh [RUNS] [go test flags...]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
shift || true

burners=()
stop() {
  for pid in "${burners[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${burners[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap stop EXIT
for _ in $(seq "$(nproc)"); do
  yes >/dev/null &
  burners+=($!)
done
echo "loaded: ${#burners[@]} CPU burners on $(nproc) cores"

for run in $(seq "$runs"); do
  start=$SECONDS
  if ! go test -race -count=1 "$@" ./...; then
    echo "loaded: run $run of $runs failed"
    exit 1
  fi
  echo "loaded: run $run of $runs passed in $((SECONDS - start)) s"
done
