#!/usr/bin/env bash
# Installs Schemathesis (the OpenAPI fuzzer test/emulator/schemathesis.test.ts runs against the
# emulator) into a project-local venv, pinned so a new release cannot change what the suite checks.
# Idempotent: nothing is downloaded when the pinned version is already there.
set -euo pipefail
cd "$(dirname "$0")/.."
version="4.32.5"
venv=".tools/schemathesis-venv"
if [ -x "$venv/bin/schemathesis" ] && "$venv/bin/schemathesis" --version | grep -q "$version"; then
  exit 0
fi
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$version"
"$venv/bin/schemathesis" --version
