#!/usr/bin/env bash
# Installs a pinned Python library (no command of its own) into its own project-local venv:
#   bash scripts/pip-library.sh <venv name> <package> <version>
# Idempotent: nothing is downloaded when the venv already has that version of the package.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 3 ] || { echo "usage: pip-library.sh <venv name> <package> <version>" >&2; exit 2; }
venv=".tools/$1" package="$2" version="$3"
if [ -x "$venv/bin/python" ] && [ "$("$venv/bin/python" -c "import importlib.metadata as m; print(m.version('$package'))" 2>/dev/null)" = "$version" ]; then
  exit 0
fi
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check "$package==$version"
