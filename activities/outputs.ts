/**
 * Output files as the manifest recorded them. A job counts as done only while its file is there
 * with the recorded size: a line in the manifest is not enough (a user deleted the file, a disk
 * was restored from an old backup). Paths from the plan or the manifest are checked to stay inside
 * the output folder, since both are files anyone with the folder can edit.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { isMissing } from './jsonl.ts';
import type { Manifest, ManifestEntry } from './manifest.ts';

/** The absolute path of `file` (relative to the output folder); throws when it leads outside. */
export function insideOutput(outputDir: string, file: string): string {
  const root = resolve(outputDir);
  const target = resolve(root, file);
  const rel = relative(root, target);
  if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) {
    throw new Error(`${JSON.stringify(file)} is not inside the output folder ${root}`);
  }
  return target;
}

export async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(path), hash);
  return hash.digest('hex');
}

/** The file is there with the recorded size (and, with `verify`, the recorded sha256). */
export async function fileIntact(outputDir: string, entry: ManifestEntry, verify = false): Promise<boolean> {
  let path: string;
  try {
    path = insideOutput(outputDir, entry.file);
  } catch {
    return false; // a line pointing outside the folder proves nothing about this job
  }
  try {
    const info = await stat(path);
    if (!info.isFile() || info.size !== entry.bytes) return false;
  } catch (error) {
    if (isMissing(error)) return false;
    throw error;
  }
  return !verify || (await sha256Of(path)) === entry.sha256;
}

export type RecordedOutput =
  | { readonly state: 'done'; readonly entry: ManifestEntry }
  /** Recorded, but the file is gone or wrong: the job runs again, replacing `entry`'s prediction. */
  | { readonly state: 'lost'; readonly entry: ManifestEntry }
  | { readonly state: 'none' };

export async function recordedOutput(manifest: Manifest, key: string): Promise<RecordedOutput> {
  const entry = await manifest.get(key);
  if (!entry) return { state: 'none' };
  return (await fileIntact(manifest.outputDir, entry)) ? { state: 'done', entry } : { state: 'lost', entry };
}
