/**
 * A lost output fetched again and signed again cannot have the bytes first delivered (C2PA salts
 * every assertion, and an ES256 signature is randomised), so it is accepted on what its manifest
 * proves: it validates (no byte changed since it was signed), and names the job, take and
 * prediction the record does, at the recorded size. Checked once when it is fetched again, and by
 * each later `--verify`, which finds its sha256 other than the first delivery's.
 */
import type { ManifestEntry } from '../../../records/manifest.ts';
import type { Store } from '../../../store/index.ts';
import { credentialOfFile } from './file-credential.ts';

export async function refetchedCredentialHolds(store: Store, entry: ManifestEntry): Promise<boolean> {
  if (entry.provenance === undefined) return false;
  if ((await store.stat(entry.file))?.bytes !== entry.bytes) return false;
  const credential = await credentialOfFile(store, entry.file);
  const named = credential?.mediaflow;
  return (
    credential?.state === 'valid' &&
    named?.job === entry.key &&
    named.take === entry.regenerations &&
    named.prediction === entry.prediction_id
  );
}
