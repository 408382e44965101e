/**
 * No Docker engine runs here, so this checks what can go wrong without one: the compose file's
 * structure, that the worker's environment is understood by the code that reads it, and that the
 * image runs files that exist.
 */

import { existsSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { SIGNING_KEY_VARIABLES } from '../../activities/provenance/credentials/signing-key.ts';
import { serviceClientFromEnv } from '../../api/client/index.ts';
import { defaultS3Client } from '../../store/s3.ts';
import { tracingRequested } from '../../telemetry/settings.ts';
import { loadTemporalTarget, TEMPORAL_ENV_VARS } from '../../worker/connection.ts';
import { WORKER_ENV, WORKER_NODE_FLAGS } from '../../worker/create-worker.ts';

/** What the AWS SDK reads to reach a bucket (store/s3.ts). */
const S3_ENV_VARS = ['AWS_ENDPOINT_URL_S3', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_REGION'];
/** The Jaeger configuration compose mounts and the trace tests start Jaeger with (test/helpers/jaeger.ts). */
const JAEGER_CONFIG = 'deploy/jaeger/config.yaml';
/** What OpenTelemetry's exporter and resource read (telemetry/sdk.ts). */
const OTEL_ENV_VARS = ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_SERVICE_NAME'];

interface Service {
  image?: string;
  build?: unknown;
  command?: string[] | string;
  environment?: Record<string, string>;
  healthcheck?: unknown;
  depends_on?: Record<string, { condition: string }>;
  ports?: string[];
  volumes?: string[];
}
const compose = parse(readFileSync('docker-compose.yml', 'utf8'), { merge: true }) as {
  services: Record<string, Service>;
  configs?: Record<string, unknown>;
};
const services = Object.entries(compose.services);

/** Compose interpolation as `docker compose up` would do it with `vars` in the shell. */
function interpolate(value: string, vars: Record<string, string>): string {
  return value.replace(/\$\{(\w+)(?::([-?])([^}]*))?\}/g, (_, name: string, kind?: string, rest?: string) => {
    if (vars[name]) return vars[name];
    if (kind === '-') return rest ?? '';
    throw new Error(`${name} is required: ${rest}`);
  });
}

describe('docker-compose.yml', () => {
  it('publishes ports on the host loopback only: the emulator, Temporal and its UI take no key', () => {
    const published = services.flatMap(([, service]) => service.ports ?? []);
    expect(published.length).toBeGreaterThan(0);
    for (const port of published) expect(port).toMatch(/^127\.0\.0\.1:\d+:\d+$/);
  });

  it('gives every service an image or a build', () => {
    for (const [name, service] of services) expect(service.image ?? service.build, name).toBeTruthy();
  });

  it('depends only on services that exist, with conditions they can meet', () => {
    for (const [name, service] of services) {
      for (const [target, { condition }] of Object.entries(service.depends_on ?? {})) {
        const dependency = compose.services[target];
        expect(dependency, `${name} → ${target}`).toBeDefined();
        if (condition === 'service_healthy')
          expect(dependency?.healthcheck, `${target} healthcheck`).toBeDefined();
        expect(['service_started', 'service_healthy', 'service_completed_successfully']).toContain(condition);
      }
    }
  });

  it("sets only worker variables that the worker's code reads, and they connect where intended", async () => {
    const worker = compose.services.worker!;
    const env = Object.fromEntries(
      Object.entries(worker.environment ?? {}).map(([k, v]) => [
        k,
        interpolate(String(v), {
          MEDIAFLOW_API_KEY: 'k',
          AWS_ACCESS_KEY_ID: 'id',
          AWS_SECRET_ACCESS_KEY: 's',
        }),
      ]),
    );
    const known: readonly string[] = [
      ...TEMPORAL_ENV_VARS,
      'MEDIAFLOW_API_URL',
      'MEDIAFLOW_API_KEY',
      ...S3_ENV_VARS,
      ...OTEL_ENV_VARS,
      ...SIGNING_KEY_VARIABLES,
    ];
    for (const name of Object.keys(env)) expect(known, name).toContain(name);

    const target = loadTemporalTarget({ env: { ...env, TEMPORAL_CONFIG_FILE: '/nonexistent.toml' } });
    expect(target.address).toBe('temporal:7233');
    expect(compose.services.temporal).toBeDefined();
    const service = serviceClientFromEnv(env); // throws on a missing or malformed URL or key
    await service.close();
    expect(compose.services[new URL(env.MEDIAFLOW_API_URL!).hostname]).toBeDefined();
  });

  it('gives workers no volume: they share Temporal and the bucket, nothing else', () => {
    const built = services.filter(([, service]) => service.build);
    expect(built.length).toBeGreaterThan(0);
    for (const [name, service] of built) expect(service.volumes ?? [], name).toEqual([]);
  });

  it("points workers' AWS SDK at the compose S3 service, with the credentials that service starts with", () => {
    const vars = { MEDIAFLOW_API_KEY: 'k', AWS_ACCESS_KEY_ID: 'id', AWS_SECRET_ACCESS_KEY: 'secret' };
    const env = (service: Service) =>
      Object.fromEntries(
        Object.entries(service.environment ?? {}).map(([k, v]) => [k, interpolate(String(v), vars)]),
      );
    const worker = env(compose.services.worker!);
    const endpoint = new URL(worker.AWS_ENDPOINT_URL_S3!);
    const s3 = compose.services[endpoint.hostname]!;
    expect(s3, 'the S3 service').toBeDefined();
    expect(s3.command).toEqual(expect.arrayContaining([`:${endpoint.port}`, '--keep-alive', 'posix']));
    expect(env(s3)).toMatchObject({
      ROOT_ACCESS_KEY: worker.AWS_ACCESS_KEY_ID,
      ROOT_SECRET_KEY: worker.AWS_SECRET_ACCESS_KEY,
    });
    // The SDK's own client, built from the worker's environment, goes there with path-style URLs.
    const client = defaultS3Client(worker);
    expect(client.config.forcePathStyle).toBe(true);
    client.destroy();
    // The keys are required, never defaulted to something guessable.
    expect(() =>
      interpolate(String(compose.services.worker?.environment?.AWS_SECRET_ACCESS_KEY), {}),
    ).toThrow(/AWS_SECRET_ACCESS_KEY/);
    // The bucket exists before a worker starts.
    expect(compose.services.worker?.depends_on?.['s3-bucket']?.condition).toBe(
      'service_completed_successfully',
    );
  });

  it('refuses to start without an API key rather than running with a guessable one', () => {
    const key = String(compose.services.worker?.environment?.MEDIAFLOW_API_KEY);
    expect(() => interpolate(key, {})).toThrow(/MEDIAFLOW_API_KEY/);
  });

  it('runs the emulator on all interfaces, at the port the worker calls', () => {
    const command = compose.services.emulator?.command as string[];
    expect(command).toEqual(expect.arrayContaining(['emulator', '--host', '0.0.0.0', '--port', '4010']));
  });

  it('traces workers into the Jaeger service, run with the configuration the trace tests run', () => {
    const worker = compose.services.worker!;
    const endpoint = interpolate(String(worker.environment?.OTEL_EXPORTER_OTLP_ENDPOINT), {});
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint })).toBe(true);
    const jaeger = compose.services[new URL(endpoint).hostname]!;
    expect(jaeger.image).toMatch(/^jaegertracing\/jaeger:/);
    expect(jaeger.volumes).toContain('./deploy/jaeger:/etc/mediaflow/jaeger:ro');
    expect(jaeger.command).toEqual(['--config', `/etc/mediaflow/jaeger/${basename(JAEGER_CONFIG)}`]);
    expect(existsSync(JAEGER_CONFIG)).toBe(true);
    // The receiver listens where the workers send, by the same config's default.
    expect(readFileSync(JAEGER_CONFIG, 'utf8')).toContain(`:-0.0.0.0:${new URL(endpoint).port}}`);
  });

  it('mounts every config a service refers to', () => {
    for (const [name, service] of services) {
      for (const { source } of (service as { configs?: { source: string }[] }).configs ?? []) {
        expect(compose.configs?.[source], `${name} config ${source}`).toBeDefined();
      }
    }
  });
});

describe('Dockerfile', () => {
  const dockerfile = readFileSync('Dockerfile', 'utf8');
  const ignored = readFileSync('.dockerignore', 'utf8')
    .split('\n')
    .filter((line) => line && !line.startsWith('#'));

  it('starts a worker through a file that exists and is not excluded from the image', () => {
    const cmd = JSON.parse(/^CMD (.+)$/m.exec(dockerfile)![1]!) as string[];
    expect(cmd).toEqual(['node', ...WORKER_NODE_FLAGS, 'bin/mediaflow.js', 'worker']);
    for (const [name, value] of Object.entries(WORKER_ENV))
      expect(dockerfile).toContain(`ENV ${name}=${value}`);
    expect(existsSync(cmd.at(-2)!)).toBe(true);
    for (const path of ['bin', 'cli', 'worker', 'workflows', 'activities', 'api', 'plan', 'emulator']) {
      expect(ignored, path).not.toContain(path);
    }
  });

  it('runs every compose command through the same entry point, workers with the heap cap', () => {
    for (const [, service] of services.filter(([, s]) => s.build)) {
      const command = (service.command as string[]).filter(
        (arg) => !WORKER_NODE_FLAGS.includes(arg as never),
      );
      expect(command.slice(0, 2)).toEqual(['node', 'bin/mediaflow.js']);
      if (command[2] === 'worker')
        expect(service.command).toEqual(['node', ...WORKER_NODE_FLAGS, ...command.slice(1)]);
    }
  });
});
