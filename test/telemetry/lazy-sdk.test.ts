/**
 * Tracing costs nothing unless asked for: no module a command or a worker loads up front reaches
 * OpenTelemetry's SDK, its exporter or Temporal's tracing interceptors except through a dynamic
 * import, and the one that guards them loads nothing without an OTLP endpoint.
 */
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { processTracing } from '../../telemetry/process-tracing.ts';
import { tracingRequested } from '../../telemetry/settings.ts';
import { workerTracing } from '../../worker/tracing/worker-options.ts';
import { type Import, importsOf } from '../architecture/source-imports.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Packages of the SDK side: only a tracing process may load them. */
const SDK_PACKAGES = [
  '@opentelemetry/sdk-trace',
  '@opentelemetry/exporter-trace-otlp-proto',
  '@opentelemetry/resources',
  '@opentelemetry/context-async-hooks',
  '@opentelemetry/core',
  '@temporalio/interceptors-opentelemetry',
];

const parsed = new Map<string, Import[]>();
const importsOfFile = (file: string) => {
  const found = parsed.get(file) ?? importsOf(ROOT, file);
  parsed.set(file, found);
  return found;
};

/** Every file `entry` loads at run time before any dynamic import runs, and what of the SDK among them. */
function loadedUpFront(entry: string): { files: Set<string>; sdk: string[] } {
  const files = new Set([entry]);
  const sdk: string[] = [];
  for (const file of files) {
    for (const i of importsOfFile(file)) {
      if (i.typeOnly || i.dynamic) continue;
      if (i.target.kind === 'ours') files.add(i.target.file);
      else if (i.target.kind === 'package' && SDK_PACKAGES.includes(i.target.name))
        sdk.push(`${file} → ${i.specifier}`);
    }
  }
  return { files, sdk };
}

describe('without an OTLP endpoint', () => {
  const commands = readdirSync(new URL('../../cli/commands/', import.meta.url)).map(
    (name) => `cli/commands/${name}`,
  );
  const entries = ['cli/main.ts', ...commands, 'cli/local-worker.ts', 'worker/create-worker.ts'];

  /** Our modules that load the SDK: only the guard (worker-options.ts) may be loaded up front. */
  const loadsSdk = (file: string) =>
    file === 'telemetry/sdk.ts' ||
    file === 'telemetry/sampler.ts' ||
    (file.startsWith('worker/tracing/') && file !== 'worker/tracing/worker-options.ts');

  it('every command, the local worker and the worker reach the SDK only through a dynamic import', () => {
    for (const entry of entries) {
      const { files, sdk } = loadedUpFront(entry);
      expect(sdk, entry).toEqual([]);
      expect([...files].filter(loadsSdk), entry).toEqual([]);
    }
  });

  it('the walk sees the imports it checks: the worker loads the transport, its spans and the guard', () => {
    const { files } = loadedUpFront('worker/create-worker.ts');
    expect(files).toContain('api/client/transport.ts');
    expect(files).toContain('telemetry/spans.ts');
    expect(files).toContain('telemetry/process-tracing.ts');
  });

  it('starts no SDK and gives workers no tracing', async () => {
    expect(tracingRequested(process.env)).toBe(false);
    expect(await processTracing()).toBeNull();
    expect(await workerTracing()).toBeNull();
  });
});

describe('tracingRequested', () => {
  it.each([
    [{}, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }, true],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces' }, true],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'true' }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_TRACES_EXPORTER: 'none' }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'false' }, true],
  ])('%j → %s', (env, expected) => {
    expect(tracingRequested(env)).toBe(expected);
  });
});
