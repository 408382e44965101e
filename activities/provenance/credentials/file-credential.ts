/**
 * What a stored output's own C2PA manifest says, read whole from the store: null when the file is
 * gone or of a type C2PA does not read. The re-run audit and the record repair both ask it.
 */
import type { Store } from '../../../store/index.ts';
import { type Credential, readCredential } from './read.ts';
import { signableType } from './sdk.ts';
import { whole } from './whole.ts';

export async function credentialOfFile(store: Store, file: string): Promise<Credential | null> {
  const format = signableType(file);
  const body = format === null ? undefined : await store.open(file);
  if (!body || format === null) return null;
  return readCredential(await whole(body), format);
}
