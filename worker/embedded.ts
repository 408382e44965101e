/**
 * The embedded default: `mediaflow run spec.yaml` with nothing configured gets a local stack, a
 * Temporal dev server (SQLite under stateDir, so campaigns survive restarts) and the emulator,
 * shared by every `mediaflow run` on this machine. docs/deployment.md explains the choices:
 *
 * - Both run as detached processes recorded in `<stateDir>/embedded.json`. A second `run` in
 *   another terminal attaches to them instead of starting another stack (workers on one task
 *   queue must all talk to the same emulator, or a prediction created through one emulator would
 *   be awaited on another).
 * - Each process using the stack registers in `<stateDir>/clients/`. stop() shuts the stack down
 *   when the last client leaves, unless asked to keep it (a detached, unfinished campaign): then,
 *   like after a crash, the stack stays up and the next `run` attaches to it with the emulator's
 *   in-memory state intact.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { startDevServer, temporalAnswers } from './dev-server.ts';
import { freePort, groupAlive, portFree, processAlive, terminateGroup } from './process-group.ts';

export interface EmbeddedOptions {
  /** Where the SQLite db, logs and the stack's record live. Default `.state` (cwd). */
  stateDir?: string;
}

export interface Embedded {
  temporalAddress: string;
  /** Temporal Web UI, for the user to watch campaigns. */
  temporalUiUrl: string | undefined;
  /** The emulator, as MEDIAFLOW_API_URL (ends with /v1) and MEDIAFLOW_API_KEY would give it. */
  service: { baseUrl: string; apiKey: string };
  /** True when another process had already started the stack. */
  attached: boolean;
  /** The one line `run` prints (never contains the API key). */
  summary: string;
  /**
   * Leaves the stack. The last process out shuts it down, unless keepRunning (an unfinished
   * campaign the user detached from: its next `run` resumes against the same emulator).
   */
  stop(options?: { keepRunning?: boolean }): Promise<void>;
}

/**
 * What `<stateDir>/embedded.json` holds (mode 0600: it carries the emulator's dev key). Parsed,
 * not cast: the pgids in it are signalled on stop, so a damaged or foreign record must read as
 * no record at all (a fresh stack is started) rather than as processes to kill.
 */
const StackRecord = z.object({
  temporal: z.object({
    pgid: z.number().int().positive(),
    address: z.string(),
    uiUrl: z.string().optional(),
  }),
  emulator: z.object({ pgid: z.number().int().positive(), baseUrl: z.string(), apiKey: z.string() }),
});
type StackRecord = z.infer<typeof StackRecord>;

const BIN = resolve(fileURLToPath(import.meta.url), '..', '..', 'bin', 'mediaflow.js');
const TEMPORAL_PORT = 7233;
const TEMPORAL_UI_PORT = 8233;
const EMULATOR_PORT = 4010;

export async function startEmbedded(options: EmbeddedOptions = {}): Promise<Embedded> {
  const stateDir = resolve(options.stateDir ?? '.state');
  mkdirSync(join(stateDir, 'clients'), { recursive: true });
  const { record, attached } = await withLock(stateDir, async () => {
    const running = readRecord(stateDir);
    if (running && (await stackAnswers(running))) return { record: running, attached: true };
    if (running) await stopStack(running); // half-dead: start both afresh
    const fresh = await launchStack(stateDir);
    writeFileSync(recordPath(stateDir), JSON.stringify(fresh, null, 2), { mode: 0o600 });
    return { record: fresh, attached: false };
  });
  // pid first (liveness), then a nonce: one process may hold several handles (tests, `run` + worker).
  const clientFile = join(stateDir, 'clients', `${process.pid}-${randomBytes(4).toString('hex')}`);
  writeFileSync(clientFile, '');
  const unregister = () => rmSync(clientFile, { force: true });
  process.on('exit', unregister);

  const { temporal, emulator } = record;
  return {
    temporalAddress: temporal.address,
    temporalUiUrl: temporal.uiUrl,
    service: { baseUrl: emulator.baseUrl, apiKey: emulator.apiKey },
    attached,
    summary:
      `Using the embedded default: Temporal dev server ${temporal.address}` +
      `${temporal.uiUrl ? ` (UI ${temporal.uiUrl})` : ''} and the local emulator ${emulator.baseUrl}` +
      ` (set TEMPORAL_ADDRESS / MEDIAFLOW_API_URL to use your own).`,
    async stop({ keepRunning = false } = {}) {
      process.off('exit', unregister);
      unregister();
      if (keepRunning) return;
      await withLock(stateDir, async () => {
        if (liveClients(stateDir).length > 0 || readRecord(stateDir) === undefined) return;
        await stopStack(record);
        rmSync(recordPath(stateDir), { force: true });
      });
    },
  };
}

/** Shuts down a stack left running (after a crash or a detached campaign), whoever started it. */
export async function stopEmbedded(stateDir = '.state'): Promise<boolean> {
  const dir = resolve(stateDir);
  return withLock(dir, async () => {
    const record = readRecord(dir);
    if (!record) return false;
    await stopStack(record);
    rmSync(recordPath(dir), { force: true });
    return true;
  });
}

async function launchStack(stateDir: string): Promise<StackRecord> {
  const port = (await portFree(TEMPORAL_PORT)) ? TEMPORAL_PORT : 0;
  const uiPort = (await portFree(TEMPORAL_UI_PORT)) ? TEMPORAL_UI_PORT : 0;
  const server = await startDevServer({
    dbFile: join(stateDir, 'temporal.db'),
    logFile: join(stateDir, 'temporal.log'),
    port,
    uiPort,
    dieWithParent: false,
  });
  try {
    const emulator = await launchEmulator(stateDir);
    return { temporal: { pgid: server.pgid()!, address: server.address, uiUrl: server.uiUrl }, emulator };
  } catch (error) {
    await server.stop();
    throw error;
  }
}

/** `mediaflow emulator` as its own process; the key travels in the environment, not argv (ps). */
async function launchEmulator(stateDir: string): Promise<StackRecord['emulator']> {
  const port = (await portFree(EMULATOR_PORT)) ? EMULATOR_PORT : await freePort();
  const apiKey = `mfk_${randomBytes(24).toString('hex')}`;
  const logFile = join(stateDir, 'emulator.log');
  const log = openSync(logFile, 'a');
  const child = spawn(process.execPath, [BIN, 'emulator', '--port', String(port), '--host', '127.0.0.1'], {
    detached: true,
    stdio: ['ignore', log, log],
    env: { ...process.env, MEDIAFLOW_API_KEY: apiKey },
  });
  child.unref();
  const emulator = { pgid: child.pid!, baseUrl: `http://127.0.0.1:${port}/v1`, apiKey };
  for (let i = 0; i < 300 && groupAlive(emulator.pgid); i++) {
    if (await emulatorAnswers(emulator.baseUrl)) return emulator;
    await sleep(100);
  }
  await terminateGroup(emulator.pgid);
  throw new Error(
    `the emulator did not start; see ${logFile}:\n${readFileSync(logFile, 'utf8').slice(-2000)}`,
  );
}

async function emulatorAnswers(baseUrl: string): Promise<boolean> {
  try {
    const response = await fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(1_000) });
    return response.ok;
  } catch {
    return false;
  }
}

/** Alive and answering: a recycled pid or a stranger on the port does not count as ours. */
async function stackAnswers(record: StackRecord): Promise<boolean> {
  return (
    groupAlive(record.temporal.pgid) &&
    groupAlive(record.emulator.pgid) &&
    (await temporalAnswers(record.temporal.address)) &&
    (await emulatorAnswers(record.emulator.baseUrl))
  );
}

async function stopStack(record: StackRecord): Promise<void> {
  await Promise.all([terminateGroup(record.temporal.pgid), terminateGroup(record.emulator.pgid)]);
}

function recordPath(stateDir: string): string {
  return join(stateDir, 'embedded.json');
}

function readRecord(stateDir: string): StackRecord | undefined {
  let text: string;
  try {
    text = readFileSync(recordPath(stateDir), 'utf8');
  } catch {
    return undefined;
  }
  try {
    const parsed = StackRecord.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Processes still using the stack; files of processes that died without stop() are swept. */
function liveClients(stateDir: string): string[] {
  const dir = join(stateDir, 'clients');
  return readdirSync(dir).filter((name) => {
    if (processAlive(Number.parseInt(name, 10))) return true;
    rmSync(join(dir, name), { force: true });
    return false;
  });
}

/**
 * Serialises start and stop between processes (two terminals running at once): an exclusive
 * lock file holding the owner's pid; a lock whose owner died is taken over.
 */
async function withLock<T>(stateDir: string, body: () => Promise<T>): Promise<T> {
  const lock = join(stateDir, 'embedded.lock');
  for (let attempt = 0; ; attempt++) {
    try {
      writeFileSync(lock, String(process.pid), { flag: 'wx' });
      break;
    } catch {
      const owner = readLockOwner(lock);
      // An empty file is a lock being written right now, unless it stays empty (its writer died).
      const stale = owner === undefined ? attempt > 50 : !processAlive(owner);
      if (stale) rmSync(lock, { force: true });
      else await sleep(100);
    }
  }
  try {
    return await body();
  } finally {
    rmSync(lock, { force: true });
  }
}

function readLockOwner(lock: string): number | undefined {
  try {
    return Number(readFileSync(lock, 'utf8')) || undefined;
  } catch {
    return undefined;
  }
}
