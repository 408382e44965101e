/**
 * A `mediaflow worker` child process of a stack (stack.ts), started as the Dockerfile starts it,
 * measured from /proc, and ended the way a drill needs: SIGKILL (a crash) or SIGTERM (a drain).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { openSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { WORKER_NODE_FLAGS } from '../../worker/create-worker.ts';
import { watchdog } from '../../worker/watchdog.ts';
import { ProcSampler } from './proc-stats.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin/mediaflow.js');
/** How long a signalled process may take to exit before it gets SIGKILL. */
const KILL_GRACE_MS = 15_000;
const POLLING_TIMEOUT_MS = 120_000;

/** Bench processes die hard with the bench (worker/watchdog.ts): SIGKILL, nothing to wait for. */
const WATCHDOG = watchdog('KILL');

export interface WorkerProcess {
  pid: number;
  /** False once the process has exited. */
  alive(): boolean;
  /** True when it exited on its own, not through kill(): a broken worker, whose log says why. */
  crashed(): boolean;
  /** Its stdout and stderr. */
  log: string;
  /** How it ended: null while it runs; code 0 after a SIGTERM is a drain that finished in time. */
  exit(): { code: number | null; signal: NodeJS.Signals | null } | null;
  /**
   * Signals the worker (default SIGTERM) and waits for its exit; SIGKILL after `graceMs`
   * (default 15 s).
   */
  kill(signal?: NodeJS.Signals, graceMs?: number): Promise<void>;
  /** Resolves once it polls its task queue (its log says so); rejects if it exits first. */
  polling(): Promise<void>;
  /** VmHWM, sampled every 250 ms and right before kill. */
  peakRssBytes(): number;
  /** When (epoch ms) VmHWM last rose. */
  peakRssAt(): number;
  cpuSeconds(): number;
}

export function spawnWorker({
  taskQueue,
  log,
  cwd,
  env,
}: {
  taskQueue: string;
  log: string;
  cwd: string;
  env: Record<string, string>;
}): WorkerProcess {
  const output = openSync(log, 'a');
  // Started as the Dockerfile starts it, heap cap included.
  const args = [...WORKER_NODE_FLAGS, BIN, 'worker', '--task-queue', taskQueue];
  const child = spawn('sh', ['-c', WATCHDOG, process.execPath, ...args], {
    cwd,
    stdio: ['pipe', output, output],
    env: { ...process.env, ...env, ...profiling() },
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error('could not start `mediaflow worker`');
  const sampler = new ProcSampler(pid);
  let killed = false;
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  child.once('exit', () => {
    sampler.stop();
    child.stdin?.destroy(); // lets the watchdog's `cat` end
  });
  return {
    pid,
    alive: () => !exited(),
    crashed: () => !killed && exited(),
    exit: () => (exited() ? { code: child.exitCode, signal: child.signalCode } : null),
    log,
    async kill(signal = 'SIGTERM', graceMs = KILL_GRACE_MS) {
      killed = true;
      sampler.sample();
      await killAndWait(child, signal, graceMs);
    },
    async polling() {
      const deadline = Date.now() + POLLING_TIMEOUT_MS;
      // The line `mediaflow worker` prints once it polls (cli/commands/worker.ts).
      while (!(await readFile(log, 'utf8')).includes('mediaflow worker polling')) {
        if (exited()) throw new Error(`the worker exited before polling (see ${log})`);
        if (Date.now() > deadline)
          throw new Error(`the worker is not polling after ${POLLING_TIMEOUT_MS} ms`);
        await sleep(200);
      }
    },
    peakRssBytes: () => sampler.last.peakRssBytes,
    peakRssAt: () => sampler.peakRisenAt,
    cpuSeconds: () => sampler.last.cpuSeconds,
  };
}

/**
 * `BENCH_WORKER_NODE_OPTIONS` (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`) reaches the workers
 * alone, not the emulator or the baseline: how docs/engine.md's profile of the ceiling was taken.
 */
function profiling(): Record<string, string> {
  const extra = process.env.BENCH_WORKER_NODE_OPTIONS;
  if (!extra) return {};
  return { NODE_OPTIONS: [process.env.NODE_OPTIONS, extra].filter(Boolean).join(' ') };
}

/** Sends `signal`, then SIGKILL after a grace period; resolves once the child has exited. */
export async function killAndWait(
  child: ChildProcess,
  signal: NodeJS.Signals,
  graceMs = KILL_GRACE_MS,
): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}
