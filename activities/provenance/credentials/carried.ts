/**
 * Whether a saved output carries mediaflow's own signed manifest for its job: what a record rebuilt
 * from its prediction says in `c2pa`, so a file lost later is fetched again and signed again, not
 * taken for a different file because the unsigned bytes are shorter.
 */
import type { Store } from '../../../store/index.ts';
import { readCredential } from './read.ts';
import { signableType } from './sdk.ts';
import { whole } from './whole.ts';

export async function carriesOwnCredential(store: Store, file: string, jobKey: string): Promise<boolean> {
  const format = signableType(file);
  const body = format === null ? undefined : await store.open(file);
  if (!body || format === null) return false;
  const credential = await readCredential(await whole(body), format);
  return credential.mediaflow?.job === jobKey;
}
