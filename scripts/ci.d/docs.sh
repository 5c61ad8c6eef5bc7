#!/usr/bin/env bash
# CI leg for the documentation: every Go block of README.md and docs/*.md is
# a complete program that builds, or a part of a repository file that
# compiles (scripts/snippets says how blocks are marked).
set -euo pipefail
cd "$(dirname "$0")/../.."

echo "== docs: install"
go mod download
(cd redisstore && go mod download) # docs/scaling.md builds a program on redisstore
# Blocks taken from files of a nested module are vetted in that module.
if [ -f adapters/mcpgo/go.mod ]; then (cd adapters/mcpgo && go mod download); fi

echo "== docs: static checks and tests of the snippet checker"
unformatted=$(gofmt -l scripts/snippets)
if [ -n "$unformatted" ]; then
  echo "gofmt would change:"; echo "$unformatted"; exit 1
fi
go vet ./scripts/snippets
go test -race ./scripts/snippets

echo "== docs: Go blocks of README.md and docs/"
go run ./scripts/snippets README.md docs/*.md
