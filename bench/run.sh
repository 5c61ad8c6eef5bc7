#!/usr/bin/env bash
# Runs every benchmark of the bench module and prints the table (and
# writes it into bench/README.md). Extra arguments go to benchtable, e.g.
#   bash bench/run.sh -rounds 2 -hold-rounds 1 -benchtime 300ms
set -euo pipefail
cd "$(dirname "$0")"
exec go run ./cmd/benchtable "$@"
