#!/usr/bin/env bash
# `npm test`: the type check and the lint run beside the suite, not before it. The suite's first
# seconds start Temporal and S3 and bundle the workflows with a core to spare, and tsc (about 18
# CPU-seconds) fits there: run first, the two added 13-17 s to the command's wall time
# (docs/benchmarks.md, "The suite"). Every part runs to its end, and the command fails when any does.
# Arguments go to vitest (`npm test -- test/cli/run.int.test.ts`).
set -uo pipefail
cd "$(dirname "$0")/.."
npm run --silent typecheck &
typecheck=$!
npm run --silent lint &
lint=$!
npx vitest run "$@"
suite=$?
failed=()
wait "$typecheck" || failed+=('the type check (npm run typecheck)')
wait "$lint" || failed+=('the lint (npm run lint)')
[ "$suite" -eq 0 ] || failed+=('the suite')
if [ "${#failed[@]}" -gt 0 ]; then
  printf 'npm test failed: %s\n' "${failed[@]}" >&2
  exit 1
fi
