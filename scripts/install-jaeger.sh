#!/usr/bin/env bash
# Installs Jaeger (github.com/jaegertracing/jaeger, Apache-2.0), the tracing backend the trace
# tests export to over OTLP and read back through its query API (test/helpers/jaeger.ts), as
# .tools/bin/jaeger. No release download is reachable here, so it is built from its Go module.
# Its go.mod carries replace directives, which `go install module@version` refuses, so it is
# built as the tool of a throwaway module (replace directives of a dependency are ignored there).
# Built once (several minutes on 2 cores, niced); skipped when the binary in .tools/bin was built
# from the pinned module version (read from its Go build info). docker-compose.yml runs the same
# version's image.
set -euo pipefail
cd "$(dirname "$0")/.."
version="v1.76.0"
module="github.com/jaegertracing/jaeger"
bin=".tools/bin/jaeger"
go="$(command -v go || echo /usr/local/go/bin/go)"
[ -x "$go" ] || { echo "Jaeger is built with Go: install a Go toolchain (go on PATH or /usr/local/go/bin/go)" >&2; exit 1; }
if [ -x "$bin" ] && "$go" version -m "$bin" | grep -qE "^\s+mod\s+$module\s+$version\s"; then
  exit 0
fi
mkdir -p .tools/bin
out="$PWD/$bin"
build="$(mktemp -d)"
trap 'rm -rf "$build"' EXIT
(
  cd "$build"
  "$go" mod init mediaflow.local/jaeger-build >/dev/null 2>&1
  nice -n 10 "$go" get -tool "$module/cmd/jaeger@$version"
  CGO_ENABLED=0 nice -n 10 "$go" build -trimpath -o "$out.partial" "$module/cmd/jaeger"
)
mv "$bin.partial" "$bin"
"$go" version -m "$bin" | grep -E "^\s+mod\s+$module\s"
