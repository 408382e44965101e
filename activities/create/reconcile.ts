/**
 * Looks for predictions an earlier attempt may have created (decision 3): same model and input,
 * created since the activity was first scheduled, and not claimed by another job. Adopted ones
 * are claimed and reported as created; the rest are created normally (with the same idempotency
 * keys). Works even when the service ignores idempotency keys.
 */
import { isDeepStrictEqual } from 'node:util';
import { retryRead, type ServiceClient } from '../../api/client/index.ts';
import type { SearchResult } from '../../api/wire/index.ts';
import type { CreateOutcome } from '../../contract/activities.ts';
import { addClaims, type NewClaim, readAllClaims } from '../../records/claims.ts';
import type { Store } from '../../store/index.ts';
import { claimOf, type Ready } from './batch.ts';

/** Characters of the prompt sent as the search query (services cap query length). */
const SEARCH_PREFIX = 200;
/** Worker clocks differ a little: look this much before the first attempt was scheduled. */
const CLOCK_SKEW_MS = 5_000;

export interface Adoption {
  readonly adopted: CreateOutcome[];
  readonly rest: Ready[];
}

export async function adoptMaybeCreated(
  client: ServiceClient,
  store: Store,
  campaign: string,
  ready: readonly Ready[],
  since: number,
): Promise<Adoption> {
  /**
   * Prediction id → the Idempotency-Key of the create that claimed it, as that create sent it
   * (the same string, so ownership here and the key of a create can never disagree): another
   * job's prediction, another campaign's in the same folder, or the failed one a regeneration
   * replaces, is never adopted.
   */
  const claimed = new Map(
    (await readAllClaims(store)).map((claim) => [claim.prediction_id, claim.idempotency_key]),
  );
  const claims: NewClaim[] = [];
  const adopted: CreateOutcome[] = [];
  const rest: Ready[] = [];
  const createdAfter = new Date(since - CLOCK_SKEW_MS).toISOString();
  for (const entry of ready) {
    const match = await findUnclaimed(client, entry, claimed, createdAfter);
    if (match) {
      claimed.set(match, entry.idempotencyKey);
      claims.push(claimOf(entry, match));
      adopted.push({ kind: 'created', i: entry.item.i, predictionId: match, at: Date.now() });
    } else {
      rest.push(entry);
    }
  }
  await addClaims(store, campaign, claims);
  return { adopted, rest };
}

async function findUnclaimed(
  client: ServiceClient,
  entry: Ready,
  claimed: ReadonlyMap<string, string>,
  createdAfter: string,
): Promise<string | null> {
  // A prefix finds the candidates; the full input is compared below.
  const prompt = String(entry.input.prompt ?? '').slice(0, SEARCH_PREFIX);
  const results = await retryRead(async () => {
    const found: SearchResult[] = [];
    for await (const result of client.search(prompt, {
      type: 'predictions',
      model: entry.job.model,
      createdAfter,
    })) {
      found.push(result);
    }
    return found;
  });
  for (const { prediction } of results) {
    const owner = prediction ? claimed.get(String(prediction.id)) : undefined;
    if (!prediction || (owner !== undefined && owner !== entry.idempotencyKey)) continue;
    if (isDeepStrictEqual(prediction.input_parameters, entry.input)) return String(prediction.id);
  }
  return null;
}
