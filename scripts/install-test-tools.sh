#!/usr/bin/env bash
# What only the test suite needs, on top of `npm run setup` (node_modules and the Temporal CLI):
# `npm run setup:all` runs this. One line per tool; each installer is idempotent and leaves a
# machine that already has its tool alone. A new tool the tests need gets a line here.
set -euo pipefail
cd "$(dirname "$0")/.."
# test/emulator/schemathesis.int.test.ts: property-based tests of the emulator against the API contract.
bash scripts/pip-tool.sh schemathesis-venv schemathesis 4.32.5 schemathesis
# The real S3 server the store tests, drills and the S3 benchmark run against.
bash scripts/install-versitygw.sh
# test/infra/cluster.int.test.ts runs a campaign on a Temporal cluster on PostgreSQL (built once, long).
bash scripts/install-temporal-server.sh
# test/telemetry/jaeger-trace.int.test.ts reads a campaign's trace back from Jaeger (built once, long).
bash scripts/install-jaeger.sh
# test/cli/terminal.int.test.ts runs `mediaflow run` in a real terminal.
bash scripts/apt-package.sh tmux tmux 'the terminal tests'
# test/review/ opens the review page and report.html in Debian's Chromium (no browser download).
bash scripts/apt-package.sh chromium chromium 'the browser tests'
# test/notify/ verifies notices' signatures with the Python standardwebhooks package (another implementation).
bash scripts/pip-library.sh standardwebhooks-venv standardwebhooks 1.1.0
# test/engine/provenance.int.test.ts reads the outputs' XMP back with Debian's exiftool.
bash scripts/apt-package.sh libimage-exiftool-perl exiftool 'the provenance tests'
# test/engine/provenance.int.test.ts reads the outputs' C2PA manifests with the CAI's Python SDK (another reader).
bash scripts/pip-library.sh c2pa-venv c2pa-python 0.38.1
# test/derive/ makes clips with Debian's ffmpeg (setup tries too, but the tests need it for sure).
bash scripts/apt-package.sh ffmpeg ffmpeg 'the derive tests'
# test/derive/ reads the derivatives' sizes and formats back with Pillow (another reader than sharp).
bash scripts/pip-library.sh pillow-venv pillow 12.0.0
