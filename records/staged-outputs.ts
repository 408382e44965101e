/**
 * Outputs staged before they are recorded. Two workers can finish one prediction (an attempt timed
 * out while still running, its retry on another worker): each downloads and signs the output, and
 * the signatures differ, so the file's bytes do. Only one record is created (create-once); were each
 * to write the file in place, the last one would win whatever the record says. So each writes its
 * bytes under a name of its own (`stagedKey`), and only the writer whose record was created
 * moves them to the output's name; the others remove theirs.
 *
 * A writer killed between its record and the move leaves the record without its file and its bytes
 * staged: whoever next finds that record's file missing (a retry, the next run, the sweep at the
 * campaign's end) looks for staged bytes with the record's size and sha256 and moves them into place
 * (`placeStaged`), so the job is not taken for lost and paid for again.
 *
 * One flat folder: it holds only the downloads under way (and what killed writers left), so it is
 * listed whole; a folder per job would leave an empty one behind for every job.
 */
import { randomUUID } from 'node:crypto';
import { STAGED, type Store } from '../store/index.ts';
import type { ManifestEntry } from './manifest.ts';
import { sha256Of } from './sha256.ts';

/** A name of this writer's own for a job's output, with the output's extension. */
export function stagedKey(jobKey: string, extension: string): string {
  return `${STAGED}${jobKey}.${randomUUID()}${extension}`;
}

/** Which job a staged key is of (a job's key holds no dot: records are named the same way). */
export function jobKeyOfStaged(key: string): string {
  return key.slice(STAGED.length).split('.')[0]!;
}

async function* stagedOf(store: Store, jobKey: string): AsyncIterable<string> {
  for await (const key of store.list(STAGED)) if (jobKeyOfStaged(key) === jobKey) yield key;
}

/** Moves the recorded bytes of `entry` into place from where they were staged; false when none are staged. */
export async function placeStaged(store: Store, entry: ManifestEntry): Promise<boolean> {
  for await (const key of stagedOf(store, entry.key)) {
    if ((await store.stat(key))?.bytes !== entry.bytes) continue;
    if ((await sha256Of(store, key)) !== entry.sha256) continue;
    await store.move(key, entry.file);
    return true;
  }
  return false;
}

/** Removes what is staged of the job (after its file was placed, or once its campaign is over). */
export async function clearStaged(store: Store, jobKey: string): Promise<string[]> {
  const removed: string[] = [];
  for await (const key of stagedOf(store, jobKey)) {
    await store.remove(key);
    removed.push(key);
  }
  return removed;
}
