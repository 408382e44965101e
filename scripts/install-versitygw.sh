#!/usr/bin/env bash
# Installs the Versity S3 Gateway (versitygw, Apache-2.0), the real S3 server the tests, the drills
# and the S3 benchmark run the store against (test/helpers/s3.ts). It has no wheel and no release
# download reachable here, so it is built from its Go module (the Go module proxy is reachable):
# about 2 to 4 minutes, once. Skipped when the binary in .tools/bin was built from the pinned
# module version (its --version says only "git" for a go install, so the build info is read).
set -euo pipefail
cd "$(dirname "$0")/.."
version="v1.8.0"
module="github.com/versity/versitygw"
bin=".tools/bin/versitygw"
go="$(command -v go || echo /usr/local/go/bin/go)"
[ -x "$go" ] || { echo "versitygw is built with Go: install a Go toolchain (go on PATH or /usr/local/go/bin/go)" >&2; exit 1; }
if [ -x "$bin" ] && "$go" version -m "$bin" | grep -qE "^\s+mod\s+$module\s+$version\s"; then
  exit 0
fi
mkdir -p .tools/bin
GOBIN="$PWD/.tools/bin" "$go" install "$module/cmd/versitygw@$version"
"$go" version -m "$bin" | grep -E "^\s+mod\s+$module\s"
