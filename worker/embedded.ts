/**
 * The embedded default: `mediaflow run spec.yaml` with nothing configured gets a local stack, a
 * Temporal dev server (SQLite under stateDir, so campaigns survive restarts) and the emulator
 * (its state in a file under stateDir, so predictions survive restarts too). docs/deployment.md
 * explains the choices; ARCHITECTURE.md decision 14:
 *
 * - The stack is a service, not a child of the command that started it. Both servers run as
 *   detached processes (their own session, so Ctrl-C in the terminal never reaches them),
 *   recorded in `<stateDir>/embedded.json` and reused by every later command; a command leaving
 *   never stops them. Workers on one task queue must all talk to the same emulator, which is
 *   why a second `run` attaches instead of starting its own.
 * - It stops only when asked (`mediaflow stack stop`, stopEmbedded()) or when the machine does.
 *   It never stops by itself: a campaign detached from (Ctrl-C) must find its predictions, and
 *   a stopped stack costs a restart of a few seconds, while a running one costs its memory
 *   and nothing else. Stopping loses nothing: the SQLite file and the emulator's state file are
 *   read back by the next start.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { openSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { type DevServer, startDevServer, temporalAnswers } from './dev-server.ts';
import {
  readIdentity,
  readRecord,
  removeRecord,
  type StackRecord,
  withLock,
  writeIdentity,
  writeRecord,
} from './embedded-record.ts';
import { makePrivate, PRIVATE_FILE_MODE, SPAWN_PRIVATE } from './private-state.ts';
import { freePort, groupAlive, portFree, terminateGroup } from './process-group.ts';

export type { StackRecord };

export interface EmbeddedOptions {
  /**
   * Where the SQLite db, the emulator's state, logs and the stack's record live. No default: a
   * folder relative to the working directory gave each folder a stack of its own; every command
   * passes the one home cli/state-home.ts decides.
   */
  stateDir: string;
  /** Extra `mediaflow emulator` flags for a stack started now (tests: `--latency-ms 500`). */
  emulatorArgs?: readonly string[];
}

export interface Embedded {
  temporalAddress: string;
  /** Temporal Web UI, for the user to watch campaigns. */
  temporalUiUrl: string | undefined;
  /** The emulator, as MEDIAFLOW_API_URL (ends with /v1) and MEDIAFLOW_API_KEY would give it. */
  service: { baseUrl: string; apiKey: string };
  /** True when the stack was already running; false when this call started it. */
  attached: boolean;
  /** The one line `run` prints (never contains the API key). */
  summary: string;
}

const BIN = resolve(fileURLToPath(import.meta.url), '..', '..', 'bin', 'mediaflow.js');
const DEFAULT_PORTS = { temporal: 7233, ui: 8233, emulator: 4010 };

/** Attaches to the running stack, or starts it (restoring everything it had when it stopped). */
export async function startEmbedded(options: EmbeddedOptions): Promise<Embedded> {
  const stateDir = resolve(options.stateDir);
  makePrivate(stateDir);
  const { record, attached } = await withLock(stateDir, async () => {
    const running = readRecord(stateDir);
    if (running && (await stackAnswers(running))) return { record: running, attached: true };
    if (running) await stopStack(running); // half-dead: start both afresh
    const fresh = await launchStack(stateDir, options.emulatorArgs ?? []);
    writeRecord(stateDir, fresh);
    // The servers' own files (SQLite's, the emulator's) exist now: none may stay readable to others.
    makePrivate(stateDir);
    return { record: fresh, attached: false };
  });
  const { temporal, emulator } = record;
  const servers =
    `Temporal dev server ${temporal.address}${temporal.uiUrl ? ` (UI ${temporal.uiUrl})` : ''}` +
    ` and the local emulator ${emulator.baseUrl}`;
  return {
    temporalAddress: temporal.address,
    temporalUiUrl: temporal.uiUrl,
    service: { baseUrl: emulator.baseUrl, apiKey: emulator.apiKey },
    attached,
    summary: attached
      ? `Using the embedded default: ${servers} (set TEMPORAL_ADDRESS / MEDIAFLOW_API_URL to use your own).`
      : `Using the embedded default, started now: ${servers}, state in ${stateDir}. It keeps running ` +
        'after this command (set TEMPORAL_ADDRESS / MEDIAFLOW_API_URL to use your own).',
  };
}

/** Stops the stack, whoever started it; false when none was running. Nothing is lost. */
export async function stopEmbedded(stateDir: string): Promise<boolean> {
  const dir = resolve(stateDir);
  makePrivate(dir);
  return withLock(dir, async () => {
    const record = readRecord(dir);
    if (!record) return false;
    await stopStack(record);
    removeRecord(dir);
    return true;
  });
}

export interface EmbeddedState {
  record: StackRecord;
  /** Both process groups alive and both servers answering. */
  answering: boolean;
  temporalAlive: boolean;
  emulatorAlive: boolean;
}

/** The stack as recorded, without starting anything; undefined when no record exists. */
export async function inspectEmbedded(stateDir: string): Promise<EmbeddedState | undefined> {
  const record = readRecord(resolve(stateDir));
  if (!record) return undefined;
  return {
    record,
    answering: await stackAnswers(record),
    temporalAlive: groupAlive(record.temporal.pgid),
    emulatorAlive: groupAlive(record.emulator.pgid),
  };
}

async function launchStack(stateDir: string, emulatorArgs: readonly string[]): Promise<StackRecord> {
  const identity = readIdentity(stateDir);
  const apiKey = identity?.apiKey ?? `mfk_${randomBytes(24).toString('hex')}`;
  const preferred = {
    temporal: await pickPort(identity?.ports.temporal, DEFAULT_PORTS.temporal),
    ui: await pickPort(identity?.ports.ui, DEFAULT_PORTS.ui),
    emulator: await pickPort(identity?.ports.emulator, DEFAULT_PORTS.emulator),
  };
  let launched: Launched;
  try {
    launched = await launchOn(stateDir, preferred, apiKey, emulatorArgs);
  } catch {
    // A port seen free was taken before we bound it (another stack starting at the same moment):
    // any free ports will do, the record says which.
    launched = await launchOn(stateDir, { temporal: 0, ui: 0, emulator: 0 }, apiKey, emulatorArgs);
  }
  const { server, emulator, emulatorPort } = launched;
  writeIdentity(stateDir, {
    apiKey,
    ports: {
      temporal: Number(server.address.split(':').pop()),
      ...(server.uiUrl ? { ui: Number(new URL(server.uiUrl).port) } : {}),
      emulator: emulatorPort,
    },
  });
  return {
    temporal: { pgid: server.pgid()!, address: server.address, uiUrl: server.uiUrl },
    emulator,
    startedAt: new Date().toISOString(),
  };
}

interface Launched {
  server: DevServer;
  emulator: StackRecord['emulator'];
  emulatorPort: number;
}

/** Both servers on these ports (0: any free one), or neither. */
async function launchOn(
  stateDir: string,
  ports: { temporal: number; ui: number; emulator: number },
  apiKey: string,
  emulatorArgs: readonly string[],
): Promise<Launched> {
  const server = await startDevServer({
    dbFile: join(stateDir, 'temporal.db'),
    logFile: join(stateDir, 'temporal.log'),
    port: ports.temporal,
    uiPort: ports.ui,
    dieWithParent: false,
    private: true,
  });
  try {
    const emulatorPort = ports.emulator || (await freePort());
    const emulator = await launchEmulator(stateDir, emulatorPort, apiKey, emulatorArgs);
    return { server, emulator, emulatorPort };
  } catch (error) {
    await server.stop();
    throw error;
  }
}

/** The port this stack had last time, else the default, else 0 (any free port). */
async function pickPort(previous: number | undefined, fallback: number): Promise<number> {
  for (const port of [previous, fallback]) if (port !== undefined && (await portFree(port))) return port;
  return 0;
}

/**
 * `mediaflow emulator` as its own process, keeping its state in `<stateDir>/emulator-state.json`;
 * the key travels in the environment, not argv (ps).
 */
async function launchEmulator(
  stateDir: string,
  port: number,
  apiKey: string,
  extraArgs: readonly string[],
): Promise<StackRecord['emulator']> {
  const logFile = join(stateDir, 'emulator.log');
  const log = openSync(logFile, 'a', PRIVATE_FILE_MODE);
  const stateFile = join(stateDir, 'emulator-state.json');
  const args = [BIN, 'emulator', '--port', String(port), '--host', '127.0.0.1', '--state-file', stateFile];
  // Under umask 077 like the dev server: its state file and upload blobs are private however made.
  const child = spawn(
    'sh',
    ['-c', `${SPAWN_PRIVATE}exec "$0" "$@"`, process.execPath, ...args, ...extraArgs],
    {
      detached: true,
      stdio: ['ignore', log, log],
      env: { ...process.env, MEDIAFLOW_API_KEY: apiKey },
    },
  );
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

/**
 * Probes of live processes before they count as not answering: each probe waits 1 s, which a
 * loaded machine can pass (a CI run's `stack status` called a running stack "not running").
 */
const ANSWER_TRIES = 4;

/** Alive and answering: a recycled pid or a stranger on the port does not count as ours. */
async function stackAnswers(record: StackRecord): Promise<boolean> {
  for (let tries = 0; tries < ANSWER_TRIES; tries++) {
    if (!groupAlive(record.temporal.pgid) || !groupAlive(record.emulator.pgid)) return false;
    if ((await temporalAnswers(record.temporal.address)) && (await emulatorAnswers(record.emulator.baseUrl)))
      return true;
  }
  return false;
}

/** SIGTERM to both: the dev server flushes SQLite, the emulator saves its state file. */
async function stopStack(record: StackRecord): Promise<void> {
  await Promise.all([terminateGroup(record.temporal.pgid), terminateGroup(record.emulator.pgid)]);
}
