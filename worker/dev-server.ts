/**
 * Starts the real Temporal dev server (`temporal server start-dev`), SQLite-backed when given a
 * db file so workflows survive a restart. Used by the test suite (one server per run, plus
 * servers of their own for tests that need special limits) and by the embedded default.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, openSync, readFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Connection } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { cliTypeOf, SEARCH_ATTRIBUTE_KEYS } from '../workflows/runtime/search-attributes.ts';
import { PRIVATE_FILE_MODE, SPAWN_PRIVATE } from './private-state.ts';
import { freePort, groupAlive, terminateGroup } from './process-group.ts';
import { ephemeralExecutable, findTemporalCli, INSTALL_HINT, SDK_DOWNLOAD } from './temporal-cli.ts';
import { watchdog } from './watchdog.ts';

export interface DevServerOptions {
  /** SQLite file; without it the server keeps everything in memory and restart() loses it. */
  dbFile?: string;
  /** gRPC port; 0 or absent picks a free one (kept across restart()). */
  port?: number;
  /** Web UI port, 0 for a free one, false or absent for headless (faster start). */
  uiPort?: number | false;
  /** Created at launch in addition to "default"; also the namespace waited for. */
  namespace?: string;
  /** Dynamic config, e.g. `{ 'limit.historyCount.suggestContinueAsNew': 200 }`. */
  dynamicConfig?: Record<string, string | number | boolean>;
  /** Server output goes here (appended); otherwise it is kept in memory for error messages. */
  logFile?: string;
  /** The CLI to run; defaults to findTemporalCli(). */
  cli?: string;
  /**
   * Kill the server when this process dies, even by SIGKILL (default true). The embedded default
   * turns it off: its server is shared with other `mediaflow run` processes (see embedded.ts).
   */
  dieWithParent?: boolean;
  /**
   * Run the server under `umask 077` and keep its log 0600 (the embedded stack's `.state/`: the db
   * holds every history). Only the CLI can be given a umask; worker/private-state.ts covers the rest.
   */
  private?: boolean;
  /** How long to wait for the server to answer (default 60 s; first start unpacks the UI). */
  readyTimeoutMs?: number;
}

export interface DevServer {
  /** `127.0.0.1:PORT`, the value for TEMPORAL_ADDRESS. */
  readonly address: string;
  readonly namespace: string;
  /** `http://127.0.0.1:UI_PORT` when the UI is on. */
  readonly uiUrl: string | undefined;
  /** Process group of the server (undefined when the SDK runs it), for liveness checks. */
  readonly pgid: () => number | undefined;
  /** SIGTERM, then SIGKILL after a grace period; resolves once the process is gone. */
  stop(): Promise<void>;
  /** stop() then start again on the same port with the same db file. */
  restart(): Promise<void>;
}

interface Resolved {
  cli: string;
  port: number;
  uiPort: number | false;
  namespace: string;
  options: DevServerOptions;
}

/** Start-up attempts when we chose the ports: another process may take a port between check and bind. */
const START_ATTEMPTS = 3;

export async function startDevServer(options: DevServerOptions = {}): Promise<DevServer> {
  const cli = options.cli ?? (await findTemporalCli());
  const resolve = async (): Promise<Resolved> => ({
    cli,
    port: options.port || (await freePort()),
    uiPort:
      options.uiPort === undefined || options.uiPort === false ? false : options.uiPort || (await freePort()),
    namespace: options.namespace ?? 'default',
    options,
  });
  const launch = (r: Resolved) => (cli === SDK_DOWNLOAD ? launchWithSdk(r) : launchCli(r));
  if (options.dbFile) mkdirSync(dirname(options.dbFile), { recursive: true });
  let resolved = await resolve();
  let running: Running;
  for (let attempt = 1; ; attempt++) {
    try {
      running = await launch(resolved);
      break;
    } catch (error) {
      const portsAreOurs = !options.port && !options.uiPort;
      if (!portsAreOurs || attempt >= START_ATTEMPTS) throw error;
      resolved = await resolve();
    }
  }
  return {
    address: `127.0.0.1:${resolved.port}`,
    namespace: resolved.namespace,
    uiUrl: resolved.uiPort === false ? undefined : `http://127.0.0.1:${resolved.uiPort}`,
    pgid: () => running.pgid,
    stop: () => running.stop(),
    async restart() {
      await running.stop();
      running = await launch(resolved);
    },
  };
}

interface Running {
  pgid: number | undefined;
  stop(): Promise<void>;
}

function devServerArgs(r: Resolved): string[] {
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(r.port), '--log-level', 'warn'];
  args.push(...(r.uiPort === false ? ['--headless'] : ['--ui-port', String(r.uiPort)]));
  if (r.options.dbFile) args.push('--db-filename', r.options.dbFile);
  if (r.namespace !== 'default') args.push('--namespace', r.namespace);
  return [...args, ...sqliteArgs(), ...dynamicConfigArgs(r.options), ...searchAttributeArgs()];
}

/**
 * Set to 1, servers keep their writes through a crash of the server but not of the machine: SQLite
 * in WAL mode without fsync. The test suite's global setup sets it for every server its tests start
 * (the shared one, drills, restarts): fsync cost a third of the server's CPU and slowed every
 * workflow task. Not for production: the embedded stack keeps every history through a power cut.
 */
export const UNSYNCED_ENV = 'MEDIAFLOW_TEMPORAL_UNSYNCED';

function sqliteArgs(): string[] {
  return process.env[UNSYNCED_ENV] === '1'
    ? ['--sqlite-pragma', 'journal_mode=wal', '--sqlite-pragma', 'synchronous=off']
    : [];
}

/** mediaflow's search attributes (workflows/runtime/search-attributes.ts), registered in every namespace. */
function searchAttributeArgs(): string[] {
  return SEARCH_ATTRIBUTE_KEYS.flatMap((key) => ['--search-attribute', `${key.name}=${cliTypeOf(key.type)}`]);
}

/**
 * Our servers' defaults, under the caller's. Campaign runs drain before continue-as-new, which costs
 * about one prediction latency, so a run should be long: the server's default suggestion (4,096
 * events) is raised to what docker-compose.yml sets too, under the 10,000 events a run may hold.
 */
export const DYNAMIC_CONFIG_DEFAULTS: Readonly<Record<string, number | boolean>> = {
  'limit.historyCount.suggestContinueAsNew': 9_500,
  // Activities a workflow task schedules go straight back to the worker that completed it
  // (create-worker.ts EAGER_ACTIVITIES_PER_TASK) instead of through matching and a poller.
  'system.enableActivityEagerExecution': true,
};

function dynamicConfigArgs(options: DevServerOptions): string[] {
  const config = { ...DYNAMIC_CONFIG_DEFAULTS, ...options.dynamicConfig };
  // The CLI parses each value as JSON, so strings need their quotes.
  return Object.entries(config).flatMap(([key, value]) => [
    '--dynamic-config-value',
    `${key}=${JSON.stringify(value)}`,
  ]);
}

/**
 * When the server must die with us, it runs under the watchdog (worker/watchdog.ts) and gets a
 * SIGTERM: exec'd in the foreground it shuts down sooner than as a background job of sh.
 */
const WATCHDOG = watchdog('TERM');

async function launchCli(r: Resolved): Promise<Running> {
  const dieWithParent = r.options.dieWithParent ?? true;
  const logFd = r.options.logFile ? openLog(r.options.logFile, r.options.private) : undefined;
  const output = logFd === undefined ? 'pipe' : logFd;
  const args = devServerArgs(r);
  const umask = r.options.private ? SPAWN_PRIVATE : '';
  const child = dieWithParent
    ? spawn('sh', ['-c', `${umask}${WATCHDOG}`, r.cli, ...args], {
        detached: true,
        stdio: ['pipe', output, output],
      })
    : spawn('sh', ['-c', `${umask}exec "$0" "$@"`, r.cli, ...args], {
        detached: true,
        stdio: ['ignore', output, output],
      });
  const captured = captureOutput(child);
  const pgid = child.pid;
  if (pgid === undefined) throw new Error(`could not start ${r.cli}: ${INSTALL_HINT}`);
  const killOnExit = () => {
    try {
      process.kill(-pgid, 'SIGTERM');
    } catch {
      // Already gone.
    }
  };
  if (dieWithParent) process.on('exit', killOnExit);
  // A forgotten stop() must not keep this process alive: the watchdog or the exit hook
  // takes the server down with us.
  child.unref();
  for (const stream of [child.stdin, child.stdout, child.stderr]) (stream as Socket | null)?.unref();
  const stop = async () => {
    process.off('exit', killOnExit);
    await terminateGroup(pgid);
  };
  try {
    await waitUntilServing(r, () => !groupAlive(pgid));
  } catch (error) {
    await stop();
    const log = r.options.logFile ? readTail(r.options.logFile) : captured();
    throw new Error(`${(error as Error).message}\n${log}`.trim());
  }
  return { pgid, stop };
}

function openLog(path: string, private_ = false): number {
  mkdirSync(dirname(path), { recursive: true });
  return openSync(path, 'a', private_ ? PRIVATE_FILE_MODE : 0o666);
}

/** The log's end, and its first panic line, which a long Go stack trace pushes out of the tail. */
function readTail(path: string): string {
  const text = readFileSync(path, 'utf8');
  const panic = /^panic: .*$/m.exec(text)?.[0];
  return `${panic ? `${panic}\n…\n` : ''}${text.slice(-4000)}`;
}

/** Keeps the last few KB of output for error messages; the pipes are drained so they never block. */
function captureOutput(child: ChildProcess): () => string {
  let text = '';
  const keep = (chunk: Buffer) => {
    text = (text + chunk.toString()).slice(-4000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return () => text;
}

/** Whether a Temporal frontend at `address` serves `namespace` right now. */
export async function temporalAnswers(address: string, namespace = 'default'): Promise<boolean> {
  try {
    const connection = await Connection.connect({ address, connectTimeout: 1_000 });
    try {
      await connection.workflowService.describeNamespace({ namespace });
      return true;
    } finally {
      await connection.close();
    }
  } catch {
    return false;
  }
}

/** Ready means the namespace answers, not merely that the port is open. */
async function waitUntilServing(r: Resolved, exited: () => boolean): Promise<void> {
  const address = `127.0.0.1:${r.port}`;
  const deadline = Date.now() + (r.options.readyTimeoutMs ?? 60_000);
  while (Date.now() < deadline) {
    if (exited()) throw new Error(`temporal dev server on ${address} exited during start-up`);
    if (await temporalAnswers(address, r.namespace)) return;
    await sleep(100);
  }
  throw new Error(
    `temporal dev server on ${address} did not answer within ${r.options.readyTimeoutMs ?? 60_000} ms`,
  );
}

/**
 * Users without the CLI but with internet: @temporalio/testing downloads and runs it. It is a dev
 * dependency (a production worker connects to a server and never starts one), so it is loaded only
 * here, and an install without it (`npm ci --omit=dev`) says what to install instead.
 */
async function launchWithSdk(r: Resolved): Promise<Running> {
  const testing = await import('@temporalio/testing').catch(() => {
    throw new Error(`No Temporal CLI installed, and no @temporalio/testing to download one. ${INSTALL_HINT}`);
  });
  let env: TestWorkflowEnvironment;
  try {
    env = await testing.TestWorkflowEnvironment.createLocal({
      server: {
        executable: ephemeralExecutable(SDK_DOWNLOAD),
        ip: '127.0.0.1',
        port: r.port,
        namespace: r.namespace,
        ui: r.uiPort !== false,
        ...(r.uiPort === false ? {} : { uiPort: r.uiPort }),
        ...(r.options.dbFile ? { dbFilename: r.options.dbFile } : {}),
        extraArgs: [...sqliteArgs(), ...dynamicConfigArgs(r.options), ...searchAttributeArgs()],
      },
    });
  } catch (error) {
    throw new Error(
      `No Temporal CLI installed and the SDK could not download one (${(error as Error).message}). ${INSTALL_HINT}`,
    );
  }
  return { pgid: undefined, stop: () => env.teardown() };
}
