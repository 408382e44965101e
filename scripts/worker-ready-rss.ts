/**
 * The memory of `mediaflow worker` before its first task (docs/engine.md, "Memory at start"),
 * without a benchmark: an in-memory dev server and an in-process emulator, then the worker started
 * as the Dockerfile starts it, read from /proc once it says it polls and `settle` seconds more.
 * The numbers vary from run to run on a busy machine, hence the median of several.
 *
 *   npx tsx scripts/worker-ready-rss.ts [runs=3] [settle=5] [-- node flags (default WORKER_NODE_FLAGS)]
 *
 * Prints one JSON line: VmRSS, RssAnon, RssFile and VmHWM in MiB per run, and their medians.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { startEmulator } from '../emulator/index.ts';
import { WORKER_NODE_FLAGS } from '../worker/create-worker.ts';
import { startDevServer } from '../worker/dev-server.ts';

const BIN = fileURLToPath(new URL('../bin/mediaflow.js', import.meta.url));
const FIELDS = ['VmRSS', 'RssAnon', 'RssFile', 'VmHWM'] as const;
type Reading = Record<(typeof FIELDS)[number], number>;

const dash = process.argv.indexOf('--');
const [runs = 3, settle = 5] = process.argv.slice(2, dash < 0 ? undefined : dash).map(Number);
const flags = dash < 0 ? [...WORKER_NODE_FLAGS] : process.argv.slice(dash + 1);

function readStatus(pid: number): Reading {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const mib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1]) / 1024;
  return Object.fromEntries(FIELDS.map((field) => [field, Math.round(mib(field))])) as Reading;
}

async function measureOnce(env: NodeJS.ProcessEnv, taskQueue: string): Promise<Reading> {
  const child = spawn(process.execPath, [...flags, BIN, 'worker', '--task-queue', taskQueue], {
    cwd: tmpdir(),
    stdio: ['ignore', 'pipe', 'ignore'],
    env,
  });
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk) => String(chunk).includes('polling') && resolve());
      child.once('exit', (code) => reject(new Error(`the worker exited (${code}) before polling`)));
    });
    await sleep(settle * 1000);
    return readStatus(child.pid!);
  } finally {
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  }
}

const server = await startDevServer();
const apiKey = `mf_${'0'.repeat(40)}`;
const emulator = await startEmulator({ port: 0, host: '127.0.0.1', apiKey, timeScale: 0 });
try {
  const env = {
    ...process.env,
    TEMPORAL_ADDRESS: server.address,
    MEDIAFLOW_API_URL: emulator.baseUrl,
    MEDIAFLOW_API_KEY: apiKey,
  };
  const readings: Reading[] = [];
  for (let run = 0; run < runs; run++) readings.push(await measureOnce(env, `ready-rss-${run}`));
  const median = (field: (typeof FIELDS)[number]) =>
    readings.map((reading) => reading[field]).sort((a, b) => a - b)[Math.floor(readings.length / 2)];
  const medians = Object.fromEntries(FIELDS.map((field) => [field, median(field)]));
  console.log(JSON.stringify({ flags, settle, runs: readings, median: medians }));
} finally {
  await emulator.close();
  await server.stop();
}
