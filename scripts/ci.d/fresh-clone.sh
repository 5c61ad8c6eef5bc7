#!/usr/bin/env bash
# CI leg: a fresh clone, without Node or npm on PATH, passes the README's
# test command (scripts/fresh-clone.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
bash scripts/fresh-clone.sh
