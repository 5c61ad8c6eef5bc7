#!/usr/bin/env bash
# CI leg for otelmcp/ (a module of its own, on OpenTelemetry): gofmt, vet
# and the race tests of the observer and its example (spans and metrics on
# the real SDK, /metrics scraped through the Prometheus exporter), the
# core's observation seam and rate limits, and the core's whole suite with
# a pass-through Observer in the way of every request.
set -euo pipefail
cd "$(dirname "$0")/../.."

echo "== otelmcp: install"
(cd otelmcp && go mod download)

echo "== otelmcp: static checks"
unformatted=$(gofmt -l otelmcp)
if [ -n "$unformatted" ]; then
  echo "gofmt would change:"; echo "$unformatted"; exit 1
fi
(cd otelmcp && go vet ./...)

echo "== otelmcp: tests"
(cd otelmcp && go test -race ./...)

echo "== otelmcp: the core's seam and rate limits"
go test -race -run 'Observer|RateLimit|NoObserver|OnEvict|EvictHook' ./httptransport/

echo "== otelmcp: the core's whole suite with an Observer on every handler"
MCPMOUNT_TEST_OBSERVER=1 go test -race ./httptransport/
