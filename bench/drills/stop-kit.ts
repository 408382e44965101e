/**
 * What the stop drills (stops.ts) and their short versions in the suite
 * (test/engine/stops.int.test.ts) share: a real tmpfs over the output folder (root only, as the suite
 * and CI run), deleting every API key but one through the service's own API, and the ledger's
 * "each job paid once".
 */
import { execFileSync } from 'node:child_process';
import { closeSync, openSync, writeSync } from 'node:fs';
import { statfs } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ServiceClient } from '../../api/client/index.ts';
import type { Ledger } from '../../emulator/index.ts';

/** Mounts a tmpfs of `size` (mount's syntax: 64k, 4m…) over `dir`. */
export function mountTmpfs(dir: string, size: string): void {
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir]);
}

/** Changes the size of the tmpfs on `dir` in place (files stay); not below what it holds. */
export function resizeTmpfs(dir: string, size: string): void {
  execFileSync('mount', ['-o', `remount,size=${size}`, dir]);
}

/**
 * Remounts the tmpfs on `dir` read-only, as an operator's remount or the kernel's errors=remount-ro
 * would. The kernel refuses (EBUSY, "mount point is busy") while any file there is open for
 * writing, and a running campaign opens and closes its downloads every few milliseconds, so this
 * tries again until a moment with none open (CI once met one on its only try).
 */
export async function remountReadOnly(dir: string, withinMs = 10_000): Promise<void> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    try {
      execFileSync('mount', ['-o', 'remount,ro', dir], { stdio: 'pipe' });
      return;
    } catch (error) {
      const busy = /busy/.test(String((error as { stderr?: unknown }).stderr ?? ''));
      if (!busy || Date.now() > deadline) throw error;
      await sleep(5);
    }
  }
}

/** Lazily, so a process still holding a file there does not keep the mount busy. */
export function unmountTmpfs(dir: string): void {
  execFileSync('umount', ['-l', dir]);
}

/** Writes `path` until the disk has not one byte left (big chunks, then single bytes). */
export function fillToTheLastByte(path: string): void {
  const fd = openSync(path, 'w');
  try {
    for (const size of [1 << 16, 1 << 10, 1]) {
      const chunk = Buffer.alloc(size);
      try {
        for (;;) writeSync(fd, chunk);
      } catch (error) {
        if ((error as { code?: string }).code !== 'ENOSPC') throw error;
      }
    }
  } finally {
    closeSync(fd);
  }
}

/** Bytes used and free on the file system holding `dir`. */
export async function diskUse(dir: string): Promise<{ used: number; free: number; size: number }> {
  const s = await statfs(dir);
  return { used: (s.blocks - s.bfree) * s.bsize, free: s.bavail * s.bsize, size: s.blocks * s.bsize };
}

/**
 * Deletes every key of the account but `keep` (the way a user rotates a key), with a client
 * holding `keep`. Returns the ids deleted.
 */
export async function deleteKeysExcept(admin: ServiceClient, keep: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const key of admin.apiKeys.list()) if (key.id !== keep) ids.push(key.id);
  for (const id of ids) await admin.apiKeys.delete(id);
  return ids;
}

/**
 * Each job paid once: one prediction per job, and no Idempotency-Key that created more than one
 * (what a re-run after a stop must leave, whichever key sent the creates).
 */
export function paidOnce(ledger: Ledger, jobs: number): { ok: boolean; detail: string } {
  const counts = Object.values(ledger.byIdempotencyKey);
  const repeated = counts.filter((n) => n !== 1).length;
  return {
    ok:
      ledger.predictionsCreated === jobs &&
      counts.length === jobs &&
      repeated === 0 &&
      ledger.duplicates === 0,
    detail:
      `ledger ${ledger.predictionsCreated} predictions for ${jobs} jobs; ${counts.length} idempotency keys, ` +
      `${repeated} with a count other than 1; ${ledger.duplicates} duplicates`,
  };
}
