/**
 * Reads a file an operation names (a logo, a font). The job's key covers the sha256 the plan took
 * of it, so a file changed since then would make an output the key does not describe: that, like
 * a file gone or forbidden, is a failure no retry fixes. Other read errors (too many open files,
 * I/O) may pass, so they are thrown as they are and the activity retries.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { DeriveError, type OperationAt } from '../derive-error.ts';
import type { Asset } from '../operations.ts';
import { errnoOf } from './failure-cause.ts';

const FOR_GOOD = new Set(['ENOENT', 'ENOTDIR', 'EISDIR', 'EACCES', 'EPERM']);

export async function readAsset(asset: Asset, at: OperationAt): Promise<Buffer> {
  const bytes = await readFile(asset.path).catch((error: unknown) => {
    const code = errnoOf(error);
    if (code !== null && FOR_GOOD.has(code)) {
      throw new DeriveError(at, `cannot read ${asset.path} (${code})`);
    }
    throw error;
  });
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  if (sha256 !== asset.sha256) {
    throw new DeriveError(
      at,
      `${asset.path} has changed since the plan was made (sha256 ${sha256}, the plan has ${asset.sha256}): plan again`,
    );
  }
  return bytes;
}
