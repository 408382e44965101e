#!/usr/bin/env bash
# Installs Debian's Chromium, which the browser tests (test/review/) drive with playwright-core:
# the review page and report.html in a real browser, with no browser downloaded at test time.
# Done here, by `npm run setup`; a machine that already has /usr/bin/chromium is left alone.
set -euo pipefail
[ -x /usr/bin/chromium ] && exit 0
if ! command -v apt-get >/dev/null; then
  echo "chromium is missing and there is no apt-get here: install Chromium at /usr/bin/chromium (or set CHROMIUM_PATH) for the browser tests" >&2
  exit 1
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends chromium
/usr/bin/chromium --version
