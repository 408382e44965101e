/**
 * Which file the review server hands out for a path, decided in one place: only an output the
 * campaign's records name (the caller checks that), never the engine's own keys (`.mediaflow/`,
 * the manifest: isEngineKey), never anything outside the output folder by its path or through a
 * symbolic link, and never a folder. Every refusal is a null (the server's 404), never a throw:
 * a path the records name may be stale, hand-edited or hostile, and none of that is a 500.
 */
import { type FileHandle, open, realpath } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { isEngineKey, isS3Url, openStore } from '../store/index.ts';

/** `file` resolved inside `folder`; throws when it would lead outside. */
function insideOutput(folder: string, file: string): string {
  const root = resolve(folder);
  const target = resolve(root, file);
  const rel = relative(root, target);
  if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) {
    throw new Error(`${JSON.stringify(file)} is not inside the output folder ${root}`);
  }
  return target;
}

/**
 * The real path of `file` inside `folder`, or null for anything that leaves the folder or, once
 * links are followed, lands on the engine's own keys (a link `still/a.png → ../.mediaflow/…`).
 */
async function insideFolder(folder: string, file: string): Promise<string | null> {
  try {
    const root = await realpath(folder);
    const target = insideOutput(root, await realpath(insideOutput(folder, file)));
    return isEngineKey(relative(root, target)) ? null : target;
  } catch {
    return null;
  }
}

/** The bytes of output `file` of `outputDir` (a folder or an s3:// URL), or null: a 404. */
export async function openOutput(outputDir: string, file: string): Promise<Readable | null> {
  if (isEngineKey(file)) return null;
  try {
    // In a bucket the store reads it (it refuses keys that lead outside the campaign's prefix).
    if (isS3Url(outputDir)) return (await openStore(outputDir).open(file)) ?? null;
    const path = await insideFolder(outputDir, file);
    return path ? await openRegularFile(path) : null;
  } catch {
    return null;
  }
}

/** Opened first, then checked on the open handle: the path cannot turn into a folder in between. */
async function openRegularFile(path: string): Promise<Readable | null> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(path, 'r');
    if (!(await handle.stat()).isFile()) {
      await handle.close();
      return null;
    }
    return handle.createReadStream();
  } catch {
    await handle?.close().catch(() => undefined);
    return null;
  }
}
