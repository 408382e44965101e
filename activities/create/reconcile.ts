/**
 * Looks for predictions an earlier attempt may have created (decision 3): same model and input,
 * created since the activity was first scheduled, and not claimed by another job. Adopted ones
 * are claimed and reported as created; the rest are created normally (with the same idempotency
 * keys). Works even when the service ignores idempotency keys.
 *
 * Jobs with identical input (a `repeat:`) find each other's predictions, so what is claimed is
 * read after every search, once this worker's creates of the same inputs have claimed what they
 * made (sending.ts): a twin's prediction whose claim was still being written is never taken (two
 * jobs sharing one prediction, one file for two jobs).
 */
import { isDeepStrictEqual } from 'node:util';
import pLimit, { type LimitFunction } from 'p-limit';
import { retryRead, type ServiceClient } from '../../api/client/index.ts';
import type { PredictionRecord, SearchResult } from '../../api/wire/index.ts';
import type { CreateOutcome } from '../../contract/activities.ts';
import { addClaims, type ClaimOwners, type NewClaim } from '../../records/claims.ts';
import type { Store } from '../../store/index.ts';
import { CLOCK_SKEW_MS, claimOf, type Ready } from './batch.ts';
import { sendingSettled } from './sending.ts';

/** Characters of the prompt sent as the search query (services cap query length). */
const SEARCH_PREFIX = 200;

export interface Adoption {
  readonly adopted: CreateOutcome[];
  readonly rest: Ready[];
}

export async function adoptMaybeCreated(
  client: ServiceClient,
  store: Store,
  owners: ClaimOwners,
  campaign: string,
  ready: readonly Ready[],
  since: number,
): Promise<Adoption> {
  // Worker clocks differ a little: look a little before the first attempt was scheduled.
  const createdAfter = new Date(since - CLOCK_SKEW_MS).toISOString();
  const candidates: (readonly string[])[] = [];
  for (const entry of ready) candidates.push(await sameInput(client, entry, createdAfter));
  if (candidates.every((found) => found.length === 0)) return { adopted: [], rest: [...ready] };
  // Read after the searches and after this worker's twins in flight have claimed theirs.
  await sendingSettled(ready);
  // Two attempts of this worker adopting at once would each find the other's pick still free.
  return turnOf(store.location)(async () => {
    const adoption = pickFree(ready, candidates, await owners.read());
    await addClaims(store, campaign, adoption.claims);
    return adoption;
  });
}

/** One adoption at a time per output location in this worker (the claims read to the claims written). */
const turns = new Map<string, LimitFunction>();
function turnOf(location: string): LimitFunction {
  const turn = turns.get(location) ?? pLimit(1);
  turns.set(location, turn);
  return turn;
}

type Claimed = ReadonlyMap<string, string>;
type Candidates = readonly (readonly string[])[];

/** Whether the prediction is unclaimed, or claimed under this entry's own key. */
const freeFor = (entry: Ready, id: string, claimed: Claimed) =>
  (claimed.get(id) ?? entry.idempotencyKey) === entry.idempotencyKey;

/** Each entry's first free candidate, never one for two entries. */
function pickFree(
  ready: readonly Ready[],
  candidates: Candidates,
  claimed: Claimed,
): Adoption & { claims: NewClaim[] } {
  const taken = new Set<string>();
  const claims: NewClaim[] = [];
  const adopted: CreateOutcome[] = [];
  const rest: Ready[] = [];
  ready.forEach((entry, n) => {
    const match = candidates[n]!.find((id) => !taken.has(id) && freeFor(entry, id, claimed));
    if (match) {
      taken.add(match);
      claims.push(claimOf(entry, match));
      adopted.push({ kind: 'created', i: entry.item.i, predictionId: match, at: Date.now() });
    } else {
      rest.push(entry);
    }
  });
  return { adopted, rest, claims };
}

/** Predictions of the entry's model with exactly its input, made since `createdAfter`. */
async function sameInput(client: ServiceClient, entry: Ready, createdAfter: string): Promise<string[]> {
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
  return results
    .map(({ prediction }) => prediction)
    .filter((prediction): prediction is PredictionRecord => prediction !== undefined)
    .filter((prediction) => isDeepStrictEqual(prediction.input_parameters, entry.input))
    .map((prediction) => String(prediction.id));
}
