/**
 * Output files as the manifest recorded them. A job counts as done only while its file is there
 * with the recorded size: a record is not enough (a user deleted the file, a disk was restored
 * from an old backup, an object expired). Paths from the plan or the manifest are checked to stay
 * inside the store (store/keys.ts), since both are files anyone with the folder or bucket can edit.
 */
import { BadKey, type Store } from '../store/index.ts';
import type { Manifest, ManifestEntry } from './manifest.ts';
import { sha256Of } from './sha256.ts';
import { placeStaged } from './staged-outputs.ts';

/** What saveOutput puts after a job's name in its file's: a take, then an extension. */
export const OUTPUT_SUFFIX = /(?:\.take\d+)?\.[a-z0-9]+$/;

/** Which job's output a file is, by its step and name (`still/still-red.take1.png` → `still/still-red`). */
export function outputIdOf(step: string, name: string): string {
  return `${step}/${name}`;
}

/** The output id of a recorded file (its step's folder, its name without take and extension). */
export function outputIdOfFile(step: string, file: string): string {
  return outputIdOf(step, file.slice(step.length + 1).replace(OUTPUT_SUFFIX, ''));
}

/** The file is there with the recorded size (and, with `verify`, the recorded sha256). */
export async function fileIntact(store: Store, entry: ManifestEntry, verify = false): Promise<boolean> {
  try {
    const stored = await store.stat(entry.file);
    if (stored?.bytes !== entry.bytes) return false;
    return !verify || (await sha256Of(store, entry.file)) === entry.sha256;
  } catch (error) {
    if (error instanceof BadKey) return false; // a record pointing outside proves nothing about this job
    throw error;
  }
}

export type RecordedOutput =
  | { readonly state: 'done'; readonly entry: ManifestEntry }
  /** Recorded, but the file is gone or wrong: the job runs again, replacing `entry`'s prediction. */
  | { readonly state: 'lost'; readonly entry: ManifestEntry }
  | { readonly state: 'none' };

export async function recordedOutput(
  manifest: Manifest,
  key: string,
  entryOf: (key: string) => Promise<ManifestEntry | undefined> = (of) => manifest.get(of),
): Promise<RecordedOutput> {
  const entry = await entryOf(key);
  if (!entry) return { state: 'none' };
  return (await fileInPlace(manifest.store, entry)) ? { state: 'done', entry } : { state: 'lost', entry };
}

/**
 * The file is there as recorded, or is now: a writer killed before it moved its file into place
 * left the recorded bytes staged (staged-outputs.ts). Checked again after the staged ones were
 * looked for, since their writer may have moved them meanwhile.
 */
export async function fileInPlace(store: Store, entry: ManifestEntry): Promise<boolean> {
  if (await fileIntact(store, entry)) return true;
  await placeStaged(store, entry);
  return fileIntact(store, entry);
}
