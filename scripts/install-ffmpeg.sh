#!/usr/bin/env bash
# ffmpeg and ffprobe make and read the clips of derive steps (derive/video/). Debian's package is
# installed when apt is there; elsewhere one line says how, and setup goes on: a campaign with no
# video operation never needs them, and `validate` names what is missing before anything is paid.
# MEDIAFLOW_FFMPEG / MEDIAFLOW_FFPROBE point at other builds (docs/deployment.md).
set -uo pipefail
cd "$(dirname "$0")/.."
[ -n "${MEDIAFLOW_FFMPEG:-}" ] && exit 0
if ! bash scripts/apt-package.sh ffmpeg ffmpeg 'clips in derive steps' >/dev/null; then
  echo "ffmpeg is not installed: clips in derive steps need it (Debian: apt-get install ffmpeg; or set MEDIAFLOW_FFMPEG and MEDIAFLOW_FFPROBE)" >&2
fi
exit 0
