/**
 * A whole mediaflow deployment on this machine, for benchmarks, drills and the short drills of
 * the test suite: a Temporal dev server (SQLite, so it survives restartTemporal()) or a local
 * cluster started beforehand (StackOptions.cluster), the emulator in its own process, and
 * `mediaflow worker` child processes, each bound to 127.0.0.1. The processes are real, so they
 * can be measured (/proc) and killed (SIGKILL) like in production.
 */

import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { appendFileSync, mkdirSync, openSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { engineQueue } from '../../contract/engine.ts';
import type { EmulatorOptions, Faults, Ledger, Limits } from '../../emulator/index.ts';
import { openStore, type Store } from '../../store/index.ts';
import { startS3Server } from '../../testkit/s3-server.ts';
import { CLIENT_CHANNEL_ARGS } from '../../worker/connection.ts';
import { WORKER_ENV } from '../../worker/create-worker.ts';
import { startDevServer } from '../../worker/dev-server.ts';
import type { Cluster } from './cluster.ts';
import { killAndWait, spawnWorker, type WorkerProcess } from './stack-worker.ts';

export type { WorkerProcess } from './stack-worker.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const EMULATOR_SCRIPT = join(ROOT, 'bench/lib/emulator-process.ts');
/**
 * What runs the emulator's TypeScript: Node's own type stripping with the stripped sources kept
 * (bin/typescript-cache.js, a second start strips nothing), else tsx.
 */
const TYPESCRIPT = process.features.typescript ? join(ROOT, 'bin/typescript-cache.js') : 'tsx';
const EMULATOR_READY_MS = 30_000;

export interface StackOptions {
  /** For the emulator process (port and host are always its own choice on 127.0.0.1). */
  emulator?: EmulatorOptions;
  /** Dynamic config of the dev server (a cluster has its own: deploy/temporal/dynamicconfig.yaml). */
  dynamicConfig?: Record<string, string | number | boolean>;
  /**
   * Run on this local cluster (bench/lib/cluster.ts) instead of starting a dev server: the stack
   * connects to its frontend, restartTemporal() restarts all its services, and stop() leaves it
   * running (whoever started it stops it).
   */
  cluster?: Cluster;
  /** Worker processes to start (default 1). */
  workers?: number;
  /** More environment for every worker (a drill's download bounds, say). */
  workerEnv?: Record<string, string>;
  /** Where specs, outputs and logs go (default a temp dir). */
  dir?: string;
  /**
   * An S3 server (versitygw, test/helpers/s3.ts) for outputs in a bucket; each worker then starts
   * in an empty working directory of its own and gets only the AWS SDK's environment to reach it.
   */
  s3?: boolean;
}

export interface Stack {
  dir: string;
  temporalAddress: string;
  /** StackOptions.cluster, to break its services one at a time; undefined on the dev server. */
  cluster: Cluster | undefined;
  /** The Temporal server's processes (the dev server, or each cluster service), for /proc. */
  temporalPids(): number[];
  /** Base URL, ending in /v1. */
  emulatorUrl: string;
  /** The emulator's process, for its CPU (/proc). */
  emulatorPid: number;
  /** The emulator's key (a throwaway one, generated per stack). */
  apiKey: string;
  /** The task queue the workers poll: this engine generation's queue of `queueName`. */
  taskQueue: string;
  /** The queue's name as a user gives it (`--task-queue <queueName>`), without the generation. */
  queueName: string;
  client: Client;
  /** Every worker started, killed ones included (their numbers stay readable). */
  workers: WorkerProcess[];
  startWorker(): Promise<WorkerProcess>;
  /** Stops the server (every cluster service) and starts it again on the same ports and database. */
  restartTemporal(): Promise<void>;
  /** `s3://<bucket>` of the stack's S3 server (StackOptions.s3), else undefined. */
  bucketUrl: string | undefined;
  /** Stops the S3 server and starts it again over the same folder (StackOptions.s3). */
  restartS3(): Promise<void>;
  /** The store of an output location, reaching the stack's S3 server for s3:// ones. */
  storeOf(location: string): Store;
  /** The working directory of each worker started, in order (empty ones unless a worker wrote). */
  workerDirs: string[];
  ledger(): Promise<Ledger>;
  setFaults(f: Partial<Faults>): Promise<void>;
  setLimits(l: Partial<Limits>): Promise<void>;
  setIgnoreIdempotency(on: boolean): Promise<void>;
  /**
   * Kills every process; then removes the folder if the stack made it (a temp dir) unless
   * `keepDir` (to look into a failed run). A folder given in StackOptions.dir is always kept.
   */
  stop(options?: { keepDir?: boolean }): Promise<void>;
}

export async function startStack(opts: StackOptions = {}): Promise<Stack> {
  const dir = opts.dir ?? (await mkdtemp(join(tmpdir(), 'mediaflow-stack-')));
  const logs = join(dir, 'logs');
  mkdirSync(logs, { recursive: true });
  const apiKey = `mfk_${randomBytes(24).toString('hex')}`;
  // `mediaflow worker --task-queue <named>` polls this engine generation's queue of that name.
  const named = `stack-${randomUUID().slice(0, 8)}`;
  const taskQueue = engineQueue(named);
  const stoppers: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const stop of stoppers.splice(0).reverse()) await stop().catch(() => {});
  };

  try {
    const [server, emulator, s3] = await Promise.all([
      startTemporal(opts, dir, logs),
      startEmulatorProcess(opts.emulator ?? {}, apiKey, join(logs, 'emulator.log')),
      opts.s3 ? startS3Server({ root: join(dir, 's3') }) : undefined,
    ]);
    stoppers.push(
      () => server.stop(),
      () => emulator.stop(),
    );
    const s3Client = s3?.client();
    if (s3)
      stoppers.push(
        async () => s3Client?.destroy(),
        () => s3.stop(),
      );
    const connection = await Connection.connect({
      address: server.address,
      channelArgs: CLIENT_CHANNEL_ARGS,
    });
    stoppers.push(async () => {
      toleratePostCloseRetries();
      await connection.close();
    });
    const client = new Client({ connection, namespace: server.namespace });
    const admin = adminOf(emulator.baseUrl);

    const workers: WorkerProcess[] = [];
    const workerDirs: string[] = [];
    const startWorker = async () => {
      // With S3, a worker shares no folder with anything: an empty directory of its own.
      const cwd = s3 ? join(dir, 'workers', String(workers.length + 1)) : ROOT;
      if (s3) mkdirSync(cwd, { recursive: true });
      workerDirs.push(cwd);
      const worker = spawnWorker({
        taskQueue: named,
        log: join(logs, `worker-${workers.length + 1}.log`),
        cwd,
        env: {
          TEMPORAL_ADDRESS: server.address,
          TEMPORAL_NAMESPACE: server.namespace,
          MEDIAFLOW_API_URL: emulator.baseUrl,
          MEDIAFLOW_API_KEY: apiKey,
          ...WORKER_ENV,
          ...s3?.env,
          ...opts.workerEnv,
        },
      });
      workers.push(worker);
      return worker;
    };
    // Workers go first on stop: a worker outliving its server only retries in a loop.
    stoppers.push(async () => {
      await Promise.all(workers.map((w) => w.kill('SIGKILL')));
    });
    for (let i = 0; i < (opts.workers ?? 1); i++) await startWorker();

    return {
      dir,
      temporalAddress: server.address,
      cluster: opts.cluster,
      temporalPids: server.pids,
      emulatorUrl: emulator.baseUrl,
      emulatorPid: emulator.pid,
      apiKey,
      taskQueue,
      queueName: named,
      client,
      workers,
      startWorker,
      restartTemporal: () => server.restart(),
      bucketUrl: s3 ? `s3://${s3.bucket}` : undefined,
      async restartS3() {
        if (!s3) throw new Error('this stack has no S3 server (StackOptions.s3)');
        await s3.restart();
      },
      storeOf: (location) => openStore(location, s3Client),
      workerDirs,
      ledger: () => admin<Ledger>('GET', 'ledger'),
      setFaults: async (faults) => void (await admin('POST', 'faults', faults)),
      setLimits: async (limits) => void (await admin('POST', 'limits', limits)),
      setIgnoreIdempotency: async (ignore) => void (await admin('POST', 'idempotency', { ignore })),
      async stop({ keepDir = false } = {}) {
        await stopAll();
        if (!opts.dir && !keepDir) await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/**
 * A client call in its retry backoff when its stack stops (a result() long poll, a describe()
 * that met the server restarting) fires its retry timer on a closed channel, and grpc-js throws
 * `Channel has been shut down` from that timer: an uncaught exception that ended benchmarks and
 * drills with it, hiding the failure that had stopped the stack. Such a call is moot once its
 * stack is gone, so that one error is noted and dropped; every other uncaught error still ends
 * the process as Node would.
 */
let tolerating = false;
function toleratePostCloseRetries(): void {
  if (tolerating) return;
  tolerating = true;
  process.on('uncaughtException', (error) => {
    if (error instanceof Error && error.message === 'Channel has been shut down') {
      console.error('(a Temporal client call retried after its stack stopped: dropped)');
      return;
    }
    console.error(error);
    process.exit(1);
  });
}

type StackTemporal = Pick<Cluster, 'address' | 'namespace' | 'restart' | 'pids' | 'stop'>;

/** The dev server the stack starts, or the cluster it was given (which outlives the stack). */
async function startTemporal(opts: StackOptions, dir: string, logs: string): Promise<StackTemporal> {
  const { cluster } = opts;
  if (cluster) {
    if (opts.dynamicConfig) throw new Error('dynamicConfig is for the dev server: a cluster reads its file');
    return {
      address: cluster.address,
      namespace: cluster.namespace,
      restart: () => cluster.restart(),
      pids: () => cluster.pids(),
      stop: async () => {},
    };
  }
  const server = await startDevServer({
    dbFile: join(dir, 'temporal', 'temporal.db'),
    logFile: join(logs, 'temporal.log'),
    dynamicConfig: opts.dynamicConfig,
  });
  return { ...server, pids: () => [server.pgid()].flatMap((pid) => pid ?? []) };
}

/** The emulator's loopback-only controls (/_emulator/…). */
function adminOf(baseUrl: string) {
  const origin = new URL(baseUrl).origin;
  return async <T = unknown>(method: 'GET' | 'POST', what: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${origin}/_emulator/${what}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    if (!response.ok) throw new Error(`emulator ${what}: HTTP ${response.status} ${await response.text()}`);
    return (await response.json()) as T;
  };
}

interface EmulatorProcess {
  baseUrl: string;
  pid: number;
  stop(): Promise<void>;
}

async function startEmulatorProcess(
  options: EmulatorOptions,
  apiKey: string,
  log: string,
): Promise<EmulatorProcess> {
  const child = spawn(process.execPath, ['--import', TYPESCRIPT, EMULATOR_SCRIPT, JSON.stringify(options)], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', openSync(log, 'a')],
    env: { ...process.env, MEDIAFLOW_API_KEY: apiKey },
  });
  const stop = () => killAndWait(child, 'SIGTERM');
  // A service gone mid-drill reads as "fetch failed" in the drill: its log says how it ended.
  child.once('exit', (code, signal) =>
    appendFileSync(log, `emulator exited: code ${code}, signal ${signal}\n`),
  );
  try {
    const baseUrl = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`emulator not ready after ${EMULATOR_READY_MS} ms`)),
        EMULATOR_READY_MS,
      );
      createInterface({ input: child.stdout! }).once('line', (line) => {
        clearTimeout(timer);
        resolve((JSON.parse(line) as { baseUrl: string }).baseUrl);
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`emulator exited with ${code} before listening (see ${log})`));
      });
    });
    return { baseUrl, pid: child.pid!, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
