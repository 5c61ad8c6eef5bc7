#!/usr/bin/env bash
# Runs the MCP conformance suite against the example server in
# examples/conformance (fixtures + mount.go).
#
#   scripts/conformance.sh            all runs
#   CONFORMANCE_RUNS="2026-07-28" scripts/conformance.sh
#
# Runs (each one CLI invocation against one server process):
#   2025-11-25  @modelcontextprotocol/conformance 0.2.x, --requirements 2025-11-25 (stateful wire)
#   2026-07-28  @modelcontextprotocol/conformance 0.2.x, --requirements 2026-07-28 (stateless wire)
#   0.1.16      @modelcontextprotocol/conformance 0.1.16, --suite all (2025-11-25 wire)
#
# Prints one line per scenario and run (PASS, FAIL, XFAIL for an expected
# failure, XPASS for an expected failure that passed), then, last,
#   conformance: N passed, M failed
# where N and M count scenario runs and M counts only unexpected failures.
# Exit status: 0 if M = 0, 1 if not, 2 on a set-up error.
#
# Environment:
#   CONFORMANCE_RUNS                  runs to do (default "2025-11-25 2026-07-28 0.1.16")
#   CONFORMANCE_SUITE_TIMEOUT         seconds allowed per run (default 600)
#   CONFORMANCE_SCENARIO_TIMEOUT_MS   per-scenario timeout for 0.2.x (default 30000)
#   CONFORMANCE_EXPECTED_FAILURES     expected-failures file (default scripts/conformance-expected-failures.txt)
#   CONFORMANCE_RESULTS_DIR           where logs and checks.json go (default: a new temporary directory)
#   CONFORMANCE_URL_2026              URL for the 2026-07-28 run (default: detected, see era_urls in common.sh)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/common.sh
. "$ROOT/scripts/common.sh"

RUNS=${CONFORMANCE_RUNS:-"2025-11-25 2026-07-28 0.1.16"}
SUITE_TIMEOUT=${CONFORMANCE_SUITE_TIMEOUT:-600}
SCENARIO_TIMEOUT_MS=${CONFORMANCE_SCENARIO_TIMEOUT_MS:-30000}
EXPECTED=${CONFORMANCE_EXPECTED_FAILURES:-$ROOT/scripts/conformance-expected-failures.txt}
OUT=${CONFORMANCE_RESULTS_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/mcpmount-conformance.XXXXXX")}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

CLI_02="$ROOT/node_modules/@modelcontextprotocol/conformance/dist/index.js"
CLI_01="$ROOT/node_modules/conformance-0-1/dist/index.js"

trap stop_server EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

command -v go >/dev/null || die "go not found"
command -v timeout >/dev/null || die "timeout (coreutils) not found"
ensure_node_modules
find_node
[ -f "$CLI_02" ] && [ -f "$CLI_01" ] || die "conformance CLIs missing from node_modules"
log "node: $NODE ($("$NODE" --version)); conformance $("$NODE" "$CLI_02" --version) and $("$NODE" "$CLI_01" --version)"

log "building examples/conformance..."
build_server "$OUT"
start_server "$OUT"
era_urls
log "server: $SERVER_URL (2026-07-28 runs use $URL_MODERN); results in $OUT"

# run_suite NAME CLI URL ARGS...: one CLI run with a hard time limit. The list
# of scenarios it should produce goes to NAME/scenarios.txt, its exit status
# to NAME/exit and its output to NAME/cli.log.
run_suite() {
  local name=$1 cli=$2 url=$3 rc=0 start
  shift 3
  local dir="$OUT/$name"
  rm -rf "$dir"
  mkdir -p "$dir/results"
  start=$(date +%s)
  log "run $name: conformance server --url $url $*"
  timeout --kill-after=10 "$SUITE_TIMEOUT" \
    "$NODE" "$cli" server --url "$url" -o "$dir/results" "$@" </dev/null >"$dir/cli.log" 2>&1 || rc=$?
  printf '%s\n' "$rc" >"$dir/exit"
  log "run $name: CLI exit $rc after $(($(date +%s) - start))s"
  if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
    log "run $name: timed out after ${SUITE_TIMEOUT}s"
  fi
}

run_dirs=()
for run in $RUNS; do
  case $run in
    2025-11-25 | 2026-07-28)
      url=$URL_LEGACY
      [ "$run" = 2026-07-28 ] && url=$URL_MODERN
      "$NODE" "$CLI_02" list --requirements "$run" >"$OUT/$run.list" 2>&1 || die "conformance list --requirements $run failed"
      run_suite "$run" "$CLI_02" "$url" --requirements "$run" --timeout "$SCENARIO_TIMEOUT_MS"
      mv "$OUT/$run.list" "$OUT/$run/scenarios.txt"
      ;;
    0.1.16)
      "$NODE" "$CLI_01" list --server >"$OUT/$run.list" 2>&1 || die "conformance@0.1.16 list failed"
      run_suite "$run" "$CLI_01" "$URL_LEGACY" --suite all
      mv "$OUT/$run.list" "$OUT/$run/scenarios.txt"
      ;;
    *) die "unknown run '$run' (known: 2025-11-25 2026-07-28 0.1.16)" ;;
  esac
  run_dirs+=("$OUT/$run")
done

stop_server
log "server log: $OUT/server.log"

rc=0
"$NODE" "$ROOT/scripts/conformance-report.mjs" --expected "$EXPECTED" "${run_dirs[@]}" || rc=$?
if [ "$rc" != 0 ] && [ -s "$OUT/server.log" ]; then
  log "the server log's last 40 lines:"
  tail -n 40 "$OUT/server.log" >&2
fi
exit "$rc"
