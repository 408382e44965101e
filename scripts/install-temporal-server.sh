#!/usr/bin/env bash
# Installs what the local Temporal cluster (bench/lib/cluster.ts, test/infra/cluster.int.test.ts)
# runs: the Temporal server (go.temporal.io/server, MIT) as .tools/bin/temporal-server, its schema
# tool as .tools/bin/temporal-sql-tool, and PostgreSQL (Debian's package) when missing.
# The server has no release download reachable here, so it is built from its Go module: v1.32.1 is
# the newest release whose go.mod asks for no newer Go than the machine's 1.26.8 (1.32.2, 1.31.5
# and 1.30.9 ask for 1.26.10), so no second toolchain is fetched. docker-compose.yml runs the same
# version's images. Built once (several minutes on 2 cores, niced); skipped when both binaries in
# .tools/bin were built from the pinned module version (read from their Go build info).
set -euo pipefail
cd "$(dirname "$0")/.."
version="v1.32.1"
module="go.temporal.io/server"
go="$(command -v go || echo /usr/local/go/bin/go)"
[ -x "$go" ] || { echo "the Temporal server is built with Go: install a Go toolchain (go on PATH or /usr/local/go/bin/go)" >&2; exit 1; }

pinned() { [ -x "$1" ] && "$go" version -m "$1" | grep -qE "^\s+mod\s+$module\s+$version\s"; }

if ! pinned .tools/bin/temporal-server || ! pinned .tools/bin/temporal-sql-tool; then
  mkdir -p .tools/bin
  # `go install` names a binary after its package folder (server, sql): build apart, then rename.
  build="$(mktemp -d)"
  trap 'rm -rf "$build"' EXIT
  CGO_ENABLED=0 GOBIN="$build" nice -n 10 "$go" install \
    "$module/cmd/server@$version" "$module/cmd/tools/sql@$version"
  mv "$build/server" .tools/bin/temporal-server
  mv "$build/sql" .tools/bin/temporal-sql-tool
  "$go" version -m .tools/bin/temporal-server | grep -E "^\s+mod\s+$module\s"
fi

# PostgreSQL (Debian's package; bench/lib/cluster-postgres.ts finds initdb and pg_ctl under
# /usr/lib/postgresql/<major>/bin, off PATH: pg_ctlcluster, on PATH, tells that it is installed).
bash scripts/apt-package.sh postgresql pg_ctlcluster 'the local Temporal cluster (PostgreSQL)' >/dev/null
