#!/usr/bin/env bash
# Installs tmux, in which test/cli/terminal.test.ts runs mediaflow as a person would see it (a
# real terminal: wrapping, redraws, Ctrl-C). Done here, by `npm run setup`, so nothing is
# installed at test time; a machine that already has tmux is left alone.
set -euo pipefail
command -v tmux >/dev/null && exit 0
if ! command -v apt-get >/dev/null; then
  echo "tmux is missing and there is no apt-get here: install tmux for the terminal tests" >&2
  exit 1
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends tmux
tmux -V
