/**
 * Reads a file an operation names (a logo, a font). The job's key covers the sha256 the plan took
 * of it, so a file changed since then would make an output the key does not describe: that, like
 * a file gone or forbidden, is a failure no retry fixes. Other read errors (too many open files,
 * I/O) may pass, so they are thrown as they are and the activity retries.
 *
 * A file found as planned is kept, with its status, for the next derivative that names it: while
 * the status is the same (the same inode, size, and modification and change times to the
 * nanosecond: any write changes the change time, which no tool sets back) it is the same file, and
 * it is not read and hashed again (a CJK font is 5 MB: reading and hashing it took a tenth of a
 * still's derive time).
 */
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { DeriveError, type OperationAt } from '../derive-error.ts';
import type { Asset } from '../operations.ts';
import { errnoOf } from './failure-cause.ts';
import { Recent } from './recent.ts';

const FOR_GOOD = new Set(['ENOENT', 'ENOTDIR', 'EISDIR', 'EACCES', 'EPERM']);

/** A campaign names a few fonts and logos, not dozens. */
const kept = new Recent<{ readonly status: string; readonly sha256: string; readonly bytes: Buffer }>(8);

export async function readAsset(asset: Asset, at: OperationAt): Promise<Buffer> {
  const refused = (error: unknown): never => {
    const code = errnoOf(error);
    if (code !== null && FOR_GOOD.has(code)) {
      throw new DeriveError(at, `cannot read ${asset.path} (${code})`);
    }
    throw error;
  };
  const status = await statusOf(asset.path).catch(refused);
  const known = kept.get(asset.path);
  const found = known?.status === status ? known : await readAndHash(asset.path, status).catch(refused);
  if (found.sha256 !== asset.sha256) {
    throw new DeriveError(
      at,
      `${asset.path} has changed since the plan was made (sha256 ${found.sha256}, the plan has ${asset.sha256}): plan again`,
    );
  }
  return found.bytes;
}

async function statusOf(path: string): Promise<string> {
  const { dev, ino, size, mtimeNs, ctimeNs } = await stat(path, { bigint: true });
  return `${dev}:${ino}:${size}:${mtimeNs}:${ctimeNs}`;
}

async function readAndHash(path: string, status: string) {
  const bytes = await readFile(path);
  const found = { status, sha256: createHash('sha256').update(bytes).digest('hex'), bytes };
  // The status read before the bytes: a file written between the two is read again next time.
  kept.set(path, found);
  return found;
}
