/**
 * A real Jaeger for the trace tests: .tools/bin/jaeger (built by scripts/install-jaeger.sh) run
 * with deploy/jaeger/config.yaml, compose's own configuration, on free 127.0.0.1 ports: OTLP over
 * HTTP in, traces kept in memory, read back through its query API (`/api/traces`, the JSON the UI
 * reads). Stopped with its process group when the test ends (or this process dies: the watchdog).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { freePort, terminateGroup } from '../../worker/process-group.ts';
import { watchdog } from '../../worker/watchdog.ts';

export const JAEGER = fileURLToPath(new URL('../../.tools/bin/jaeger', import.meta.url));
export const JAEGER_CONFIG = fileURLToPath(new URL('../../deploy/jaeger/config.yaml', import.meta.url));
const READY_TIMEOUT_MS = 30_000;

const Tag = z.object({ key: z.string(), type: z.string(), value: z.unknown() });
const Reference = z.object({ refType: z.string(), traceID: z.string(), spanID: z.string() });
export const JaegerSpan = z.object({
  traceID: z.string(),
  spanID: z.string(),
  operationName: z.string(),
  references: z.array(Reference).default([]),
  startTime: z.number(),
  duration: z.number(),
  tags: z.array(Tag).default([]),
  logs: z.array(z.object({ fields: z.array(Tag).default([]) })).default([]),
  processID: z.string(),
});
export type JaegerSpan = z.infer<typeof JaegerSpan>;
const Process = z.object({ serviceName: z.string(), tags: z.array(Tag).default([]) });
export const JaegerTrace = z.object({
  traceID: z.string(),
  spans: z.array(JaegerSpan),
  processes: z.record(z.string(), Process),
});
export type JaegerTrace = z.infer<typeof JaegerTrace>;
const Traces = z.object({ data: z.array(JaegerTrace).nullable() });

export interface Jaeger {
  /** For OTEL_EXPORTER_OTLP_ENDPOINT (OTLP over HTTP; the exporter adds /v1/traces). */
  readonly otlpEndpoint: string;
  /** The query API and UI. */
  readonly queryUrl: string;
  /** One trace by id, or null when Jaeger has none (yet). */
  trace(traceId: string): Promise<JaegerTrace | null>;
  /** Traces of `service` whose spans carry every tag in `tags` (Jaeger's search). */
  search(service: string, tags: Record<string, string>): Promise<JaegerTrace[]>;
  stop(): Promise<void>;
}

export async function startJaeger(): Promise<Jaeger> {
  if (!existsSync(JAEGER)) {
    throw new Error(`${JAEGER} is missing: run \`npm run setup:all\` (scripts/install-jaeger.sh builds it)`);
  }
  const [otlpHttp, otlpGrpc, queryHttp, queryGrpc] = await Promise.all([
    freePort(),
    freePort(),
    freePort(),
    freePort(),
  ]);
  const child: ChildProcess = spawn('sh', ['-c', watchdog('TERM'), JAEGER, '--config', JAEGER_CONFIG], {
    detached: true,
    stdio: ['pipe', 'ignore', 'pipe'],
    env: {
      PATH: process.env.PATH,
      JAEGER_OTLP_HTTP: `127.0.0.1:${otlpHttp}`,
      JAEGER_OTLP_GRPC: `127.0.0.1:${otlpGrpc}`,
      JAEGER_QUERY_HTTP: `127.0.0.1:${queryHttp}`,
      JAEGER_QUERY_GRPC: `127.0.0.1:${queryGrpc}`,
      JAEGER_LOG_LEVEL: 'warn',
    },
  });
  let output = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  });
  child.unref();
  const pgid = child.pid!;
  const queryUrl = `http://127.0.0.1:${queryHttp}`;
  const stop = () => terminateGroup(pgid);
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    const ready = await fetch(`${queryUrl}/api/services`).then(
      (response) => response.ok,
      () => false,
    );
    // The query API answers once the pipeline is built, receiver included.
    if (ready && (await portOpen(otlpHttp))) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`jaeger did not start within ${READY_TIMEOUT_MS} ms: ${output}`);
    }
    await sleep(100);
  }
  const get = async (path: string) => {
    const response = await fetch(`${queryUrl}${path}`);
    if (response.status === 404) return null;
    if (!response.ok) throw new Error(`jaeger ${path}: ${response.status} ${await response.text()}`);
    return Traces.parse(await response.json()).data ?? [];
  };
  return {
    otlpEndpoint: `http://127.0.0.1:${otlpHttp}`,
    queryUrl,
    async trace(traceId) {
      return (await get(`/api/traces/${traceId}`))?.[0] ?? null;
    },
    async search(service, tags) {
      const query = new URLSearchParams({
        service,
        tags: JSON.stringify(tags),
        limit: '1000',
        lookback: '1h',
      });
      return (await get(`/api/traces?${query}`)) ?? [];
    },
    stop,
  };
}

async function portOpen(port: number): Promise<boolean> {
  return fetch(`http://127.0.0.1:${port}/v1/traces`, { method: 'POST' }).then(
    () => true,
    () => false,
  );
}
