/**
 * docker-compose.yml and the local cluster (bench/lib/cluster.ts) run Temporal from one set of
 * files, deploy/temporal/, so the `cluster` drill tests what compose deploys. No Docker here: this
 * checks that compose mounts and names those files where the harness uses them, runs the same
 * services of the same server version, and that the files say what mediaflow needs.
 */
import { execFile as execFileCallback } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { basename, relative } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  DEPLOY_DIR,
  DYNAMIC_CONFIG,
  PORT_VARS,
  SERVER_CONFIG,
  SETUP_NAMESPACE,
  SETUP_SCHEMA,
  TEMPORAL_SERVER,
  TEMPORAL_SERVICES,
} from '../../bench/lib/cluster.ts';
import { DYNAMIC_CONFIG_DEFAULTS } from '../../worker/dev-server.ts';
import { cliTypeOf, SEARCH_ATTRIBUTE_KEYS } from '../../workflows/runtime/search-attributes.ts';

const execFile = promisify(execFileCallback);

interface Service {
  image?: string;
  entrypoint?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  ports?: string[];
  depends_on?: Record<string, { condition: string }>;
}
const compose = parse(readFileSync('docker-compose.yml', 'utf8'), { merge: true }) as {
  services: Record<string, Service>;
};
const services = Object.entries(compose.services);
const serverServices = services.filter(([, s]) => s.image?.startsWith('temporalio/server:'));
const adminServices = services.filter(([, s]) => s.image?.startsWith('temporalio/admin-tools:'));
const config = readFileSync(SERVER_CONFIG, 'utf8');

/** The folder a service mounts deploy/temporal at, and the path of `file` (in deploy/temporal) there. */
function mounted(service: Service, file: string): string {
  const mount = (service.volumes ?? []).find((v) => v.startsWith(`./${relative('.', DEPLOY_DIR)}:`));
  expect(mount, 'deploy/temporal mounted').toBeDefined();
  return `${mount!.split(':')[1]}/${relative(DEPLOY_DIR, file)}`;
}

/** The default a `{{ default "X" (env "NAME") }}` in config.yaml gives NAME. */
function configDefault(name: string): string | undefined {
  return new RegExp(`default "([^"]*)" \\(env "${name}"\\)`).exec(config)?.[1];
}

describe('deploy/temporal: one Temporal configuration for compose and the local cluster', () => {
  it('runs each Temporal service once in compose, from the config file and dynamic config the harness uses', () => {
    const run = serverServices.map(([, s]) => s.environment?.TEMPORAL_SERVICES);
    expect(run.sort()).toEqual([...TEMPORAL_SERVICES].sort());
    for (const [name, service] of serverServices) {
      const entrypoint = (service.entrypoint ?? []).join(' ');
      expect(entrypoint, name).toContain(`--config-file ${mounted(service, SERVER_CONFIG)}`);
      expect(service.environment?.DYNAMIC_CONFIG_FILE_PATH, name).toBe(mounted(service, DYNAMIC_CONFIG));
    }
  });

  it('starts the other services once the frontend is up, as the harness does (they race to set up a new database)', () => {
    const [frontend] = serverServices.find(([, s]) => s.environment?.TEMPORAL_SERVICES === 'frontend')!;
    for (const [name, service] of serverServices.filter(([n]) => n !== frontend)) {
      expect(service.depends_on?.[frontend]?.condition, name).toBe('service_healthy');
    }
  });

  it('creates the schemas and the namespace with the scripts the harness runs', () => {
    const scripts = adminServices.map(([, s]) => (s.entrypoint ?? []).at(-1));
    expect(scripts.sort()).toEqual(
      [mounted(adminServices[0]![1], SETUP_NAMESPACE), mounted(adminServices[0]![1], SETUP_SCHEMA)].sort(),
    );
  });

  it('runs the server version the setup builds for the local cluster', () => {
    const pinned = /^version="v([^"]+)"$/m.exec(
      readFileSync('scripts/install-temporal-server.sh', 'utf8'),
    )?.[1];
    expect(pinned).toBeDefined();
    for (const [name, service] of [...serverServices, ...adminServices]) {
      expect(service.image, name).toMatch(new RegExp(`:\\$\\{TEMPORAL_VERSION:-${pinned}\\}$`));
    }
  });

  it('publishes the frontend at the port the config gives it, the one workers dial; the harness sets every port', () => {
    const frontend = serverServices.find(([, s]) => s.environment?.TEMPORAL_SERVICES === 'frontend')!;
    const grpc = configDefault('FRONTEND_GRPC_PORT');
    expect(frontend[1].ports).toEqual([`127.0.0.1:${grpc}:${grpc}`]);
    expect(compose.services.worker?.environment?.TEMPORAL_ADDRESS).toBe(`${frontend[0]}:${grpc}`);
    // Every port the config reads is one the harness picks (free ports: never compose's fixed ones).
    const portVars = [...config.matchAll(/env "(\w+_PORT)"/g)].map((m) => m[1]);
    expect(new Set(portVars)).toEqual(new Set([...Object.values(PORT_VARS).flat(), 'DB_PORT']));
  });

  it("registers exactly mediaflow's search attributes, with their types", () => {
    const listed = readFileSync(`${DEPLOY_DIR}/search-attributes.txt`, 'utf8').trim().split('\n');
    expect(listed).toEqual(SEARCH_ATTRIBUTE_KEYS.map((key) => `${key.name}=${cliTypeOf(key.type)}`));
  });

  it('sets the dynamic config the dev server runs with, in keys and types this server version knows', async () => {
    const dynamic = parse(readFileSync(DYNAMIC_CONFIG, 'utf8')) as Record<string, { value: unknown }[]>;
    for (const [key, value] of Object.entries(DYNAMIC_CONFIG_DEFAULTS)) {
      expect(dynamic[key]?.[0]?.value, key).toBe(value);
    }
    // The server's own check: an unknown key or a wrong type fails it.
    const { stdout } = await execFile(TEMPORAL_SERVER, ['validate-dynamic-config', DYNAMIC_CONFIG]);
    expect(stdout).toContain(basename(DYNAMIC_CONFIG));
    expect(stdout).not.toMatch(/error:|warning:/);
  });
});
