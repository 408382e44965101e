/**
 * The key a worker's in-memory index files an entry under (the manifest's lines, the claims'):
 * the first 52 bits of a hex digest, held as a number, which a double holds exactly. At 100,000
 * jobs the full strings (32 characters a job key, 64 an idempotency key) cost those indexes about
 * 10 MiB more. Two keys can share a prefix (about once in a million campaigns of 100,000 jobs),
 * so whoever reads an entry checks the line it points to against the full key, and a mismatch
 * takes the slow path (the record, the whole log): an index that guesses wrong costs a read,
 * never a wrong answer. A key that is no digest (written by hand, say) is filed as itself.
 */
const DIGEST_PREFIX = /^[0-9a-f]{13}/;

export function indexKey(key: string): number | string {
  return DIGEST_PREFIX.test(key) ? Number.parseInt(key.slice(0, 13), 16) : key;
}
