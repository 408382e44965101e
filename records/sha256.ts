/** The sha256 of a stored file, the digest every record of a file holds. */
import { createHash } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import type { Store } from '../store/index.ts';

/** The sha256 of `key`'s bytes, or undefined when there is none. */
export async function sha256Of(store: Store, key: string): Promise<string | undefined> {
  const stream = await store.open(key);
  if (!stream) return undefined;
  const hash = createHash('sha256');
  await pipeline(stream, hash);
  return hash.digest('hex');
}
