#!/usr/bin/env bash
# Checks that a fresh clone passes the README's test command with Go alone:
# it clones this repository's committed HEAD into a temporary directory
# (so no node_modules), hides Node and npm from PATH, and runs the command
# the README gives for the tests there. The tests against the reference
# everything server (Node) skip then, saying why; all others must pass.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)

# The README's test command: its first line that starts with `go test`,
# without the comment after it.
cmd=$(sed -n 's/^\(go test [^#]*[^ #]\) *#.*/\1/p' "$ROOT/README.md" | head -n 1)
[ -n "$cmd" ] || { echo "fresh-clone: no go test command in README.md" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/mcpmount-fresh.XXXXXX")
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
git clone --quiet --no-local "$ROOT" "$work/clone"

# A PATH without node, npm or npx: each directory that holds one of them
# is replaced by a copy made of links to everything else it holds.
hidden=(node nodejs npm npx corepack)
path=
i=0
IFS=: read -r -a dirs <<<"$PATH"
for dir in "${dirs[@]}"; do
  [ -d "$dir" ] || continue
  has=
  for name in "${hidden[@]}"; do [ -e "$dir/$name" ] && has=1; done
  if [ -n "$has" ]; then
    i=$((i + 1))
    shadow="$work/path$i"
    mkdir -p "$shadow"
    for f in "$dir"/*; do
      name=${f##*/}
      [[ " ${hidden[*]} " == *" $name "* ]] || ln -s "$f" "$shadow/$name"
    done
    dir=$shadow
  fi
  path=${path:+$path:}$dir
done
for name in node npm npx; do
  if PATH=$path command -v "$name" >/dev/null; then
    echo "fresh-clone: could not hide $name from PATH" >&2
    exit 2
  fi
done

echo "fresh-clone: $cmd (in a clone of $(git -C "$ROOT" rev-parse --short HEAD), without Node)"
start=$SECONDS
# CI requires the reference server's tests elsewhere; here they must skip.
(cd "$work/clone" && env -u MCPMOUNT_REQUIRE_NODE PATH="$path" bash -c "$cmd")
echo "fresh-clone: passed in $((SECONDS - start)) s"
