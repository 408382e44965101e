/**
 * Claims: one per prediction a campaign created, written right after the service answered. Per
 * campaign, because two campaigns may share an output location and `cancel` must stop only its
 * own. They serve two rescues:
 *  - reconciling a "maybe created" request: a prediction found on the service that another create
 *    (of any campaign in the location) already claimed is not ours;
 *  - cancel: every prediction its campaign claimed that is not recorded may still be running.
 *
 * In S3 mode each claim is a create-once object under `.mediaflow/claims/<campaign>/`, named by its
 * create's Idempotency-Key (hashed), so a create on any host finds it with one read. A folder is
 * one host's (ARCHITECTURE.md decision 11: workers on several hosts share a bucket, not a folder),
 * so it keeps the appended log per campaign it always had (`claims/<campaign>.jsonl`, jsonl.ts:
 * one checked write per batch): a file per claim would cost a disk block per prediction, and a
 * disk filling up would then refuse the very claim that keeps a re-run from paying again.
 */
import { createHash } from 'node:crypto';
import { dirname, join } from 'node:path';
import pLimit from 'p-limit';
import { z } from 'zod';
import { claimKey, claimsOf, isS3Url, LocalStore, OutputRoot, type Store } from '../store/index.ts';
import { appendLines, completeLines, type LineWriter, nodeWriter, parseJson, parseLines } from './jsonl.ts';

export const Claim = z.object({
  campaign: z.string(),
  prediction_id: z.string(),
  key: z.string(),
  regen: z.number().int().nonnegative(),
  /** The Idempotency-Key the create sent (create/keys.ts): the claim's owner, as reconciliation compares it. */
  idempotency_key: z.string(),
  /**
   * The activity whose attempt made it (`<run id>/<activity id>`, create/attempt.ts). Its own retry
   * adopts the prediction whatever became of it: a failure it met is the job's, for the step's
   * retries to decide. Absent on claims written before it was kept.
   */
  made_by: z.string().optional(),
});
export type Claim = z.infer<typeof Claim>;

/** A claim as a create makes it; the campaign is the request's. */
export type NewClaim = Omit<Claim, 'campaign'>;

const CLAIMS = '.mediaflow/claims/';

const hashed = (text: string, length: number) =>
  createHash('sha256').update(text).digest('hex').slice(0, length);

/** The claim of the first prediction made under an idempotency key. */
export function claimName(idempotencyKey: string): string {
  return hashed(idempotencyKey, 32);
}

/** A folder's log of a campaign's claims. Campaign names are safe key segments (plan/schema.ts, SAFE_NAME). */
export function claimsLogOf(campaign: string): string {
  return `${CLAIMS}${campaign}.jsonl`;
}

export async function addClaims(
  store: Store,
  campaign: string,
  claims: readonly NewClaim[],
  writer: LineWriter = nodeWriter,
): Promise<void> {
  if (claims.length === 0) return;
  if (!isS3Url(store.location)) {
    const log = join(store.location, claimsLogOf(campaign));
    // Never through a folder linked out of the output folder (store/confine.ts).
    const root = store instanceof LocalStore ? store.root : new OutputRoot(store.location);
    await root.prepare(dirname(log));
    appendLines(
      log,
      claims.map((claim) => JSON.stringify(Claim.parse({ campaign, ...claim }))),
      writer,
    );
    return;
  }
  const limit = pLimit(8);
  await Promise.all(
    claims.map((claim) =>
      limit(async () => {
        const body = `${JSON.stringify(Claim.parse({ campaign, ...claim }))}\n`;
        const name = claimName(claim.idempotency_key);
        const first = await store.createOnce(claimKey(campaign, name), body);
        // A service that ignores idempotency keys can make a second prediction under one key: it
        // is claimed too (beside the first), so cancel stops it and no other job adopts it.
        if (!first.created && parseClaim(first.existing)?.prediction_id !== claim.prediction_id) {
          await store.createOnce(claimKey(campaign, `${name}.${hashed(claim.prediction_id, 16)}`), body);
        }
      }),
    ),
  );
}

/** S3 mode: the claim of the first prediction a campaign's create made under `idempotencyKey`. */
export async function findClaim(
  store: Store,
  campaign: string,
  idempotencyKey: string,
): Promise<Claim | undefined> {
  const text = await store.read(claimKey(campaign, claimName(idempotencyKey)));
  return text === undefined ? undefined : parseClaim(text);
}

/** The claims of one campaign. */
export async function readClaims(store: Store, campaign: string): Promise<Claim[]> {
  const keys: string[] = [claimsLogOf(campaign)];
  for await (const key of store.list(claimsOf(campaign))) keys.push(key);
  return readClaimsAt(store, keys);
}

/** A claimed prediction's id and the Idempotency-Key of the create that claimed it. */
type Owned = readonly [predictionId: string, idempotencyKey: string];

/**
 * Prediction id → the Idempotency-Key of the create that claimed it, as that create sent it (the
 * same string, so ownership and the key of a create can never disagree), over every campaign in
 * the location: another job's prediction, another campaign's, or the failed one a regeneration
 * replaces, is never taken (create/reconcile.ts, create/taken.ts).
 *
 * Kept between reads, one per output location (claims-index.ts): each read lists the claims
 * and reads only those new to it or whose tag changed (a folder's appended log). Reading every
 * claim each time cost a worker that took over a killed one's retried creates a thousand S3 reads
 * per create, its event loop falling far behind (docs/benchmarks.md, the cluster drill). The price
 * is memory once a reconcile has read a bucket's claims, a fraction of a kilobyte a claim
 * (docs/benchmarks.md, "Measurements behind the code"), kept rather than parsed again each read.
 */
export class ClaimOwners {
  private known = new Map<string, { readonly tag: string; readonly owned: readonly Owned[] }>();
  /** One read at a time: a second one waits and then reads only what the first did not. */
  private readonly turn = pLimit(1);
  private readonly store: Store;

  constructor(store: Store) {
    this.store = store;
  }

  read(): Promise<Map<string, string>> {
    return this.turn(async () => {
      const listed: { key: string; tag: string }[] = [];
      for await (const entry of this.store.listTagged(CLAIMS)) listed.push(entry);
      const unread = listed.filter(({ key, tag }) => this.known.get(key)?.tag !== tag);
      const read = await readClaimsEach(
        this.store,
        unread.map(({ key }) => key),
      );
      const fresh = new Map(unread.map(({ key }, n) => [key, read[n]!]));
      // Only what is listed now is kept: a claim removed by hand is no longer anyone's.
      this.known = new Map(
        listed.map(({ key, tag }) => [
          key,
          {
            tag,
            owned:
              fresh.get(key)?.map((c) => [c.prediction_id, c.idempotency_key] as const) ??
              this.known.get(key)!.owned,
          },
        ]),
      );
      return new Map([...this.known.values()].flatMap(({ owned }) => owned));
    });
  }
}

async function readClaimsAt(store: Store, keys: readonly string[]): Promise<Claim[]> {
  return (await readClaimsEach(store, keys)).flat();
}

/** The claims in each key's object: one, or a folder's log of many; none where it is missing or damaged. */
async function readClaimsEach(store: Store, keys: readonly string[]): Promise<Claim[][]> {
  const texts = await store.readAll(keys);
  return texts.map((text, i) => {
    const key = keys[i]!;
    if (text === undefined) return [];
    // A folder's log: its complete lines (a torn tail, from a killed writer, is skipped).
    if (key.endsWith('.jsonl')) return parseLines(completeLines(Buffer.from(text)).lines, Claim);
    const claim = parseClaim(text);
    return claim ? [claim] : [];
  });
}

/** A claim, or undefined for anything else (a damaged or foreign object is not trusted). */
function parseClaim(text: string): Claim | undefined {
  const parsed = Claim.safeParse(parseJson(text));
  return parsed.success ? parsed.data : undefined;
}
