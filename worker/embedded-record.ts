/**
 * The embedded stack's files under stateDir, each parsed with zod (a damaged or foreign file reads
 * as absent, never as processes to signal), and the lock that serialises start and stop:
 *
 * - `embedded.json` (0600): the running stack, its process groups, addresses, the emulator's key
 *   and when it started. Removed when the stack is stopped.
 * - `stack.json` (0600): what stays the same from one start of the stack to the next, the
 *   emulator's key and the ports. A restarted stack comes back on the same addresses with the
 *   same key, so a worker still running in a `run` process carries on against it.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { processAlive } from './process-group.ts';

export const StackRecord = z.object({
  temporal: z.object({
    pgid: z.number().int().positive(),
    address: z.string(),
    uiUrl: z.string().optional(),
  }),
  emulator: z.object({ pgid: z.number().int().positive(), baseUrl: z.string(), apiKey: z.string() }),
  /** Absent in records written before the stack was a service. */
  startedAt: z.string().optional(),
});
export type StackRecord = z.infer<typeof StackRecord>;

const Port = z.number().int().min(1).max(65_535);
export const StackIdentity = z.object({
  apiKey: z.string().min(1),
  ports: z.object({ temporal: Port, ui: Port.optional(), emulator: Port }),
});
export type StackIdentity = z.infer<typeof StackIdentity>;

export function recordPath(stateDir: string): string {
  return join(stateDir, 'embedded.json');
}

export function readRecord(stateDir: string): StackRecord | undefined {
  return readJson(recordPath(stateDir), StackRecord);
}

export function writeRecord(stateDir: string, record: StackRecord): void {
  writeFileSync(recordPath(stateDir), JSON.stringify(record, null, 2), { mode: 0o600 });
}

export function removeRecord(stateDir: string): void {
  rmSync(recordPath(stateDir), { force: true });
}

export function readIdentity(stateDir: string): StackIdentity | undefined {
  return readJson(join(stateDir, 'stack.json'), StackIdentity);
}

export function writeIdentity(stateDir: string, identity: StackIdentity): void {
  writeFileSync(join(stateDir, 'stack.json'), JSON.stringify(identity, null, 2), { mode: 0o600 });
}

function readJson<T>(path: string, schema: z.ZodType<T>): T | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const parsed = schema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Serialises start and stop between processes (two terminals running at once): an exclusive
 * lock file holding the owner's pid; a lock whose owner died is taken over.
 */
export async function withLock<T>(stateDir: string, body: () => Promise<T>): Promise<T> {
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
