/**
 * A real Temporal cluster on this machine, as docker-compose.yml deploys it but without Docker:
 * a throwaway PostgreSQL (cluster-postgres.ts), Temporal's schemas created by temporal-sql-tool,
 * and the server (both built by scripts/install-temporal-server.sh) run from deploy/temporal/'s
 * config with each service in a process of its own, so the drill and the test kill and restart
 * one at a time. The schema and namespace steps are the scripts compose runs, the config and
 * dynamic config the files compose mounts; only ports and addresses differ (environment).
 */
import { type ChildProcess, execFile as execFileCallback, spawn } from 'node:child_process';
import { appendFileSync, existsSync, openSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Connection } from '@temporalio/client';
import { temporalAnswers } from '../../worker/dev-server.ts';
import { freePort, groupAlive, portFree, terminateGroup } from '../../worker/process-group.ts';
import { findTemporalCli, INSTALL_HINT, SDK_DOWNLOAD } from '../../worker/temporal-cli.ts';
import { watchdog } from '../../worker/watchdog.ts';
import { POSTGRES_USER, type Postgres, startPostgres } from './cluster-postgres.ts';

const execFile = promisify(execFileCallback);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TOOLS = join(ROOT, '.tools', 'bin');
export const TEMPORAL_SERVER = join(TOOLS, 'temporal-server');
/** The files docker-compose.yml mounts into its Temporal containers. */
export const DEPLOY_DIR = join(ROOT, 'deploy', 'temporal');
export const SERVER_CONFIG = join(DEPLOY_DIR, 'config.yaml');
export const DYNAMIC_CONFIG = join(DEPLOY_DIR, 'dynamicconfig.yaml');
export const SETUP_SCHEMA = join(DEPLOY_DIR, 'setup-schema.sh');
export const SETUP_NAMESPACE = join(DEPLOY_DIR, 'setup-namespace.sh');

/** Temporal's services, each its own process here and its own container in compose. */
export const TEMPORAL_SERVICES = ['frontend', 'history', 'matching', 'worker'] as const;
export type TemporalService = (typeof TEMPORAL_SERVICES)[number];

/** The environment variables deploy/temporal/config.yaml reads for each service's ports. */
export const PORT_VARS: Record<TemporalService, readonly string[]> = {
  frontend: ['FRONTEND_GRPC_PORT', 'FRONTEND_HTTP_PORT', 'FRONTEND_MEMBERSHIP_PORT'],
  history: ['HISTORY_GRPC_PORT', 'HISTORY_MEMBERSHIP_PORT'],
  matching: ['MATCHING_GRPC_PORT', 'MATCHING_MEMBERSHIP_PORT'],
  worker: ['WORKER_GRPC_PORT', 'WORKER_MEMBERSHIP_PORT'],
};
const READY_TIMEOUT_MS = 60_000;
/** How long a service that exited on its own waits before it is started again (compose: ~100 ms, doubling). */
const RESTART_DELAY_MS = 1_000;
/** Services die with the process that started them (worker/watchdog.ts), however it ends. */
const WATCHDOG = watchdog('KILL');

export interface ClusterOptions {
  /** Where PostgreSQL's data and the logs go (default a temp folder, removed by stop()). */
  dir?: string;
  namespace?: string;
}

export interface Cluster {
  /** `127.0.0.1:PORT` of the frontend, the value for TEMPORAL_ADDRESS. */
  readonly address: string;
  readonly namespace: string;
  readonly dir: string;
  readonly postgres: Postgres;
  /**
   * Ends one service and waits until its process is gone: SIGKILL (default, a crash), or SIGTERM
   * (a graceful stop, SIGKILL after 15 s).
   */
  kill(service: TemporalService, signal?: 'SIGKILL' | 'SIGTERM'): Promise<void>;
  /** Starts a killed service again on its ports; resolves once its gRPC port accepts. */
  start(service: TemporalService): Promise<void>;
  /** Every service stopped (SIGTERM) and started again, frontend first: a whole-server restart. */
  restart(): Promise<void>;
  /** The process of each running service (to read its CPU from /proc), in TEMPORAL_SERVICES order. */
  pids(): number[];
  /**
   * Stops every service, then PostgreSQL; nothing of the cluster is left running. Its folder goes
   * too if the cluster made it, unless `keepDir` (to read the logs of a failed run).
   */
  stop(options?: { keepDir?: boolean }): Promise<void>;
  /** The last `lines` warnings and errors of each service's log and PostgreSQL's, to print on failure. */
  logTails(lines?: number): Promise<string>;
}

export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  if (!existsSync(TEMPORAL_SERVER)) {
    throw new Error(`${TEMPORAL_SERVER} is missing: run scripts/install-temporal-server.sh`);
  }
  const ownDir = options.dir === undefined;
  const dir = options.dir ?? (await mkdtemp(join(tmpdir(), 'mediaflow-cluster-')));
  // mkdtemp's 0700 would keep the postgres user (cluster-postgres.ts) out of its own folder in it.
  if (ownDir) await chmod(dir, 0o755);
  const namespace = options.namespace ?? 'default';
  const postgres = await startPostgres(join(dir, 'postgres'));
  const running = new Map<TemporalService, ChildProcess>();
  try {
    const env: Record<string, string> = {
      ...(await serverEnv(postgres.port)),
      PATH: `${TOOLS}${delimiter}${process.env.PATH ?? ''}`,
    };
    await execFile('sh', [SETUP_SCHEMA], {
      env: { ...env, SQL_HOST: '127.0.0.1', SQL_PORT: String(postgres.port), SQL_USER: POSTGRES_USER },
      timeout: READY_TIMEOUT_MS,
    });
    const address = `127.0.0.1:${env.FRONTEND_GRPC_PORT}`;
    // As compose's `restart: unless-stopped` does for the server's containers, a service that exits
    // on its own is started again; one ended by kill() or stop() (no longer in `running`) is not.
    // History exits when PostgreSQL goes down while it starts ("Unable to initialize namespace
    // registry"): without this the suite's cluster test once stalled for 180 s on a dead history.
    const supervise = (service: TemporalService): ChildProcess => {
      const child = launch(service, env, dir);
      running.set(service, child);
      child.once('exit', (code, signal) => {
        child.stdin?.destroy(); // ends its watchdog's `cat`
        if (running.get(service) !== child) return;
        appendFileSync(
          join(dir, `${service}.log`),
          `cluster harness: ${service} exited (${signal ?? code}); starting it again in ${RESTART_DELAY_MS} ms\n`,
        );
        setTimeout(() => {
          if (running.get(service) === child) supervise(service);
        }, RESTART_DELAY_MS).unref();
      });
      return child;
    };
    const start = async (service: TemporalService) => {
      const child = supervise(service);
      try {
        await untilListening(Number(env[PORT_VARS[service][0]!]), child);
      } catch (error) {
        if (running.get(service) === child) running.delete(service); // a failed start is not retried
        throw error;
      }
    };
    // The first service on a new database writes the cluster's metadata record; two at once race
    // for it and the loser exits. The frontend goes first (compose's depend on it the same way).
    const startAll = async () => {
      await start('frontend');
      await Promise.all(TEMPORAL_SERVICES.filter((s) => s !== 'frontend').map(start));
    };
    await startAll();
    const cli = await findTemporalCli();
    if (cli === SDK_DOWNLOAD) throw new Error(`setup-namespace.sh needs the temporal CLI: ${INSTALL_HINT}`);
    await execFile('sh', [SETUP_NAMESPACE], {
      env: {
        ...process.env,
        PATH: `${dirname(cli)}${delimiter}${process.env.PATH ?? ''}`,
        TEMPORAL_ADDRESS: address,
        NAMESPACE: namespace,
      },
      timeout: READY_TIMEOUT_MS,
    }).catch((error: Error & { stderr?: string }) => {
      throw new Error(`setup-namespace.sh failed: ${error.message} ${error.stderr ?? ''}`);
    });
    await untilAnswers(address, namespace);
    const kill = async (service: TemporalService, signal: 'SIGKILL' | 'SIGTERM' = 'SIGKILL') => {
      const child = running.get(service);
      running.delete(service);
      if (child?.pid === undefined) return;
      // A crash is a SIGKILL and nothing before it: terminateGroup would send SIGTERM first. The
      // service may be gone already (exited on its own, its restart not yet due).
      if (signal === 'SIGKILL' && groupAlive(child.pid)) process.kill(-child.pid, 'SIGKILL');
      await terminateGroup(child.pid, signal === 'SIGKILL' ? 0 : 15_000);
    };
    return {
      address,
      namespace,
      dir,
      postgres,
      kill,
      start,
      async restart() {
        await Promise.all(TEMPORAL_SERVICES.map((service) => kill(service, 'SIGTERM')));
        await startAll();
        await untilAnswers(address, namespace);
      },
      pids: () => TEMPORAL_SERVICES.flatMap((service) => running.get(service)?.pid ?? []),
      async stop({ keepDir = false } = {}) {
        await Promise.all(TEMPORAL_SERVICES.map((service) => kill(service, 'SIGTERM')));
        await postgres.stop();
        if (ownDir && !keepDir) await rm(dir, { recursive: true, force: true });
      },
      logTails: (lines = 15) => logTails(dir, lines),
    };
  } catch (error) {
    const started = [...running.values()];
    running.clear(); // no restart of what is being stopped
    for (const child of started) if (child.pid !== undefined) await terminateGroup(child.pid, 0);
    await postgres.stop();
    throw new Error(`the local Temporal cluster did not start (logs in ${dir}): ${(error as Error).message}`);
  }
}

/** deploy/temporal/config.yaml's variables: a free port for every port, this PostgreSQL. */
async function serverEnv(postgresPort: number): Promise<Record<string, string>> {
  const env: Record<string, string> = {
    POSTGRES_SEEDS: '127.0.0.1',
    DB_PORT: String(postgresPort),
    POSTGRES_USER,
    BIND_ON_IP: '127.0.0.1',
    DYNAMIC_CONFIG_FILE_PATH: DYNAMIC_CONFIG,
  };
  for (const name of Object.values(PORT_VARS).flat()) {
    env[name] = String(name.endsWith('_MEMBERSHIP_PORT') ? await freeMembershipPort() : await freePort());
  }
  return env;
}

/**
 * Temporal stores membership ports in a PostgreSQL smallint (cluster_membership.rpc_port): above
 * 32767 a service dies at start, and the OS hands out free ports from 32768 up. So these are
 * drawn below, from a range the OS does not pick from, and checked free.
 */
async function freeMembershipPort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (await portFree(port)) return port;
  }
}

/**
 * The server logs JSON lines, mostly info; a stall (the suite's cluster test once waited 180 s on
 * "Failed to describe workflow") is explained by the warnings and errors around it.
 */
async function logTails(dir: string, lines: number): Promise<string> {
  const logs = [...TEMPORAL_SERVICES.map((service) => `${service}.log`), 'postgres/postgres.log'];
  const tails = await Promise.all(
    logs.map(async (name) => {
      const text = await readFile(join(dir, name), 'utf8').catch(() => '');
      const notable = text
        .split('\n')
        .filter((line) => /"level":"(warn|error|fatal)"|ERROR|FATAL|PANIC/.test(line));
      return `--- ${join(dir, name)}: last ${Math.min(lines, notable.length)} of ${notable.length} warnings and errors\n${notable.slice(-lines).join('\n')}`;
    }),
  );
  return tails.join('\n');
}

function launch(service: TemporalService, env: Record<string, string>, dir: string): ChildProcess {
  const log = openSync(join(dir, `${service}.log`), 'a');
  const args = ['--config-file', SERVER_CONFIG, '--allow-no-auth', 'start', '--service', service];
  const child = spawn('sh', ['-c', WATCHDOG, TEMPORAL_SERVER, ...args], {
    detached: true,
    stdio: ['pipe', log, log],
    env: { ...process.env, ...env },
  });
  // A forgotten stop() must not keep the test process alive: the watchdog ends the service.
  child.unref();
  (child.stdin as unknown as { unref(): void } | null)?.unref();
  return child;
}

function portAccepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

const GRPC_NOT_FOUND = 5;

/**
 * Whether the frontend reaches a history host: the namespace answers from the frontend alone, so
 * a cluster could look ready while its history service had not joined the frontend's membership
 * yet, and a start then failed with UNAVAILABLE "Not enough hosts to serve the request" (seen in
 * a loaded CI run). Asking for a workflow that does not exist goes to history; NotFound is its answer.
 */
async function historyServes(address: string, namespace: string): Promise<boolean> {
  const connection = await Connection.connect({ address, connectTimeout: 1_000 }).catch(() => null);
  if (!connection) return false;
  try {
    await connection.workflowService.describeWorkflowExecution({
      namespace,
      execution: { workflowId: 'mediaflow-readiness-probe' },
    });
    return true;
  } catch (error) {
    return (error as { code?: number }).code === GRPC_NOT_FOUND;
  } finally {
    await connection.close();
  }
}

async function untilListening(port: number, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!(await portAccepts(port))) {
    if (child.pid === undefined || !groupAlive(child.pid)) throw new Error(`a service on :${port} exited`);
    if (Date.now() > deadline) throw new Error(`nothing listens on :${port} after ${READY_TIMEOUT_MS} ms`);
    await sleep(100);
  }
}

async function untilAnswers(address: string, namespace: string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!(await temporalAnswers(address, namespace)) || !(await historyServes(address, namespace))) {
    if (Date.now() > deadline) throw new Error(`${address} does not serve ${namespace}`);
    await sleep(100);
  }
}
