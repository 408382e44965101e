#!/usr/bin/env bash
# Installs node_modules exactly as package-lock.json says (`npm ci`: it never rewrites the lock,
# and fails when package.json and the lock disagree). Skipped when the last `npm ci` here installed
# this very lock, so a second setup takes a moment: the stamp lives inside node_modules, which
# `npm ci` empties first, so an interrupted install leaves no stamp and runs again.
# The Node the project runs on is one of these packages: the `node` dev dependency (the registry's
# build of Node 22), whose bin npm puts first on PATH for every `npm run` and `npx` (docs/deployment.md).
set -euo pipefail
cd "$(dirname "$0")/.."
stamp=node_modules/.mediaflow-lock.sha256
wanted="$(sha256sum package-lock.json | cut -d' ' -f1)"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$wanted" ]; then
  exit 0
fi
npm ci --no-audit --no-fund
echo "$wanted" >"$stamp"
