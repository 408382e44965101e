/**
 * The embedded stack's state folder is private to its user: 0700 for folders, 0600 for files.
 * It holds the emulator's API key (stack.json), every workflow history (temporal.db) and the
 * servers' logs; on a shared machine a 0644 file there hands all of it to every other account.
 *
 * Three layers, because files appear there three ways: what we write ourselves is opened with
 * mode 0600 (the records, the logs), the servers we spawn run under `umask 077` (SPAWN_PRIVATE:
 * SQLite's db, -wal and -shm files, whatever the Temporal CLI creates), and `makePrivate` tightens
 * whatever is already there (a folder from an older mediaflow, the SDK-downloaded server, which
 * cannot be given a umask) each time the stack starts or stops.
 */
import { chmodSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** A `sh -c` prefix: every file the exec'd program creates is readable by its user alone. */
export const SPAWN_PRIVATE = 'umask 077; ';

/** Creates `dir` (0700) if needed and takes group and other access off everything inside it. */
export function makePrivate(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  tighten(dir);
}

function tighten(path: string): void {
  let stat: ReturnType<typeof lstatSync>;
  try {
    stat = lstatSync(path);
  } catch {
    return; // removed meanwhile (a lock file, SQLite's -shm): nothing left to protect
  }
  // A symbolic link is not followed: chmod on it would change a file outside the folder.
  if (stat.isSymbolicLink()) return;
  const wanted = stat.isDirectory() ? PRIVATE_DIR_MODE : PRIVATE_FILE_MODE;
  // Only ever removes bits: a read-only file stays read-only.
  const mode = stat.mode & wanted;
  if ((stat.mode & 0o777) !== mode) chmodIfThere(path, mode);
  if (stat.isDirectory()) for (const name of readdirSync(path)) tighten(join(path, name));
}

function chmodIfThere(path: string, mode: number): void {
  try {
    chmodSync(path, mode);
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ENOENT') throw error;
  }
}
