#!/usr/bin/env bash
# CI leg: the root module's whole suite, 5 runs in a row while a CPU
# burner keeps every core busy, passes every time (scripts/loaded.sh).
# About 3 minutes a run on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash scripts/loaded.sh "${LOADED_RUNS:-5}"
