/**
 * The key a worker's in-memory index files an entry under (the manifest's lines, the claims'):
 * 52 bits of the key's SHA-1, held as a number, which a double holds exactly. At 100,000 jobs the
 * full strings (32 characters a job key, 64 an idempotency key) cost those indexes about 10 MiB
 * more. Hashed, not the key's own first characters, so keys that begin alike (a counter padded
 * with zeros, say) spread as well as digests do. Two keys can still share one (about once in a
 * million campaigns of 100,000 jobs), so whoever reads an entry checks the line it points to
 * against the full key, and a mismatch takes the slow path (the record, the whole log): an index
 * that guesses wrong costs a read, never a wrong answer.
 */
import { hash } from 'node:crypto';

export function indexKey(key: string): number {
  return Number.parseInt(hash('sha1', key, 'hex').slice(0, 13), 16);
}
