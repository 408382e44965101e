#!/usr/bin/env bash
# Installs a Debian package the tests drive, with apt, once: tmux (test/cli/terminal.int.test.ts runs
# mediaflow in a real terminal) and Chromium (test/review/ opens the review page and report.html in
# a real browser, none downloaded at test time). `npm run setup` calls it, so nothing is installed
# at test time; a machine that already has the executable is left alone.
# Usage: apt-package.sh <package> <executable> <what it is for>
set -euo pipefail
package=$1 executable=$2 purpose=$3
command -v "$executable" >/dev/null && exit 0
if ! command -v apt-get >/dev/null; then
  echo "$package is missing and there is no apt-get here: install it ($executable) for $purpose" >&2
  exit 1
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$package"
command -v "$executable"
