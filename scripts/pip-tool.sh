#!/usr/bin/env bash
# Installs a pinned Python command-line tool into its own project-local venv under .tools/:
#   bash scripts/pip-tool.sh <venv name> <package> <version> <command>
# Idempotent: nothing is downloaded when `<command> --version` already names the pinned version.
# Exit 3 when pip cannot get the package (callers with a fallback, like install-temporal.sh, use it).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 4 ] || { echo "usage: pip-tool.sh <venv name> <package> <version> <command>" >&2; exit 2; }
venv=".tools/$1" package="$2" version="$3" command="$4"
if [ -x "$venv/bin/$command" ] && "$venv/bin/$command" --version | grep -qw -- "$version"; then
  exit 0
fi
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check "$package==$version" || exit 3
"$venv/bin/$command" --version
