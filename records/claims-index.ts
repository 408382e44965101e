/**
 * The claims of each campaign, found by idempotency key. Every create asks (create/adopt-claimed.ts),
 * and nearly every answer is "none": only a prediction made and never recorded has a claim to adopt.
 * In S3 mode a claim is one read of its create-once object (claims.ts), asked each time: keeping the
 * claims read would grow with the campaign. A folder's log is read incrementally (jsonl.ts,
 * AppendedLines), so a lookup never rereads the whole log (that made a large campaign quadratic in
 * worker CPU); of each key only where its first claim's line starts is kept, and the line is read
 * again on the rare hit (whole claims kept would make a worker's memory grow with the campaign).
 */
import { join } from 'node:path';
import { isS3Url, type Store } from '../store/index.ts';
import { Claim, ClaimOwners, claimsLogOf, findClaim } from './claims.ts';
import { indexKey } from './index-key.ts';
import { AppendedLines, readLineAt, readLines } from './jsonl.ts';

/** What a create asks of its campaign's claims. */
export interface CampaignClaims {
  /** The first claim made under the key, if any. */
  lookup(idempotencyKey: string): Promise<Claim | undefined>;
}

/** A folder's log of one campaign's claims, indexed. */
class ClaimsLog implements CampaignClaims {
  private readonly appended: AppendedLines<typeof Claim>;
  /**
   * Where the first claim of each idempotency key starts (the first stays the key's, as in S3
   * mode), by its index key (index-key.ts: the line read is checked against the key).
   */
  private readonly firstLine = new Map<number, number>();

  private readonly file: string;

  constructor(file: string) {
    this.file = file;

    this.appended = new AppendedLines(file, Claim);
  }

  async lookup(idempotencyKey: string): Promise<Claim | undefined> {
    const key = indexKey(idempotencyKey);
    let offset = this.firstLine.get(key);
    if (offset === undefined) {
      for (const { value, offset: at } of await this.appended.next()) {
        const read = indexKey(value.idempotency_key);
        if (!this.firstLine.has(read)) this.firstLine.set(read, at);
      }
      offset = this.firstLine.get(key);
      if (offset === undefined) return undefined;
    }
    const claim = readLineAt(this.file, offset, Claim);
    if (claim?.idempotency_key === idempotencyKey) return claim;
    // Another key's claim there (two keys sharing an index key), or the log was replaced under
    // this worker (restored from a backup, say): a claim keeps a re-run from paying again, so it
    // is looked for in the whole log rather than taken as gone.
    return (await readLines(this.file, Claim)).find((found) => found.idempotency_key === idempotencyKey);
  }
}

/**
 * Folder logs indexed at once, and locations whose owners are kept: what a worker ran last (an
 * evicted one is read again).
 */
const OPEN_LOGS = 8;

export class ClaimsIndex {
  private readonly logs = new Map<string, ClaimsLog>();
  private readonly owners = new Map<string, ClaimOwners>();

  /** Who claimed each prediction in the output location (claims.ts), kept for the locations used last. */
  ownersOf(store: Store): ClaimOwners {
    return lastUsed(this.owners, store.location, () => new ClaimOwners(store));
  }

  of(store: Store, campaign: string): CampaignClaims {
    if (isS3Url(store.location)) return { lookup: (key) => findClaim(store, campaign, key) };
    const file = join(store.location, claimsLogOf(campaign));
    return lastUsed(this.logs, file, () => new ClaimsLog(file));
  }
}

/** `key`'s value in `open` (made if missing), set again last: the one used longest ago goes first. */
function lastUsed<T>(open: Map<string, T>, key: string, make: () => T): T {
  const value = open.get(key) ?? make();
  open.delete(key);
  open.set(key, value);
  if (open.size > OPEN_LOGS) open.delete(open.keys().next().value!);
  return value;
}
