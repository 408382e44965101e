/**
 * Predictions this campaign created and claimed but never recorded (a campaign stopped by a full
 * disk or a deleted key, a worker lost between create and download) are adopted by the next
 * attempt or run instead of being created again: whatever key made them, and however long ago, so
 * nothing depends on the service remembering an idempotency key. Only one that is still running or
 * has succeeded is adopted; a failed, canceled or forgotten one is made anew under a key that names
 * it (keys.ts, replacementKey), since the service would hand it back under the old key.
 */
import { retryRead, type ServiceClient, ServiceError } from '../../api/client/index.ts';
import type { CreateOutcome } from '../../contract/activities.ts';
import type { Claim } from '../claims.ts';
import type { ClaimsIndex } from '../claims-index.ts';

type CampaignClaims = ReturnType<ClaimsIndex['of']>;

import type { Ready } from './batch.ts';
import { replacementKey } from './keys.ts';

export interface Adopted {
  readonly adopted: CreateOutcome[];
  readonly rest: Ready[];
}

export async function adoptClaimed(
  client: ServiceClient,
  claimed: CampaignClaims,
  ready: readonly Ready[],
): Promise<Adopted> {
  const adopted: CreateOutcome[] = [];
  const rest: Ready[] = [];
  for (const entry of ready) {
    let idempotencyKey = entry.idempotencyKey;
    let live: Claim | undefined;
    for (
      let claim = await claimed.lookup(idempotencyKey);
      claim;
      claim = await claimed.lookup(idempotencyKey)
    ) {
      if (await stillUseful(client, claim.prediction_id)) {
        live = claim;
        break;
      }
      idempotencyKey = replacementKey(idempotencyKey, claim.prediction_id);
    }
    if (live)
      adopted.push({ kind: 'created', i: entry.item.i, predictionId: live.prediction_id, at: Date.now() });
    else rest.push({ ...entry, idempotencyKey });
  }
  return { adopted, rest };
}

async function stillUseful(client: ServiceClient, predictionId: string): Promise<boolean> {
  try {
    const prediction = await retryRead(() => client.predictions.get(predictionId));
    return prediction.status === 'processing' || prediction.status === 'succeeded';
  } catch (error) {
    // Forgotten by the service (404) or refused for good: make it again.
    if (error instanceof ServiceError && !error.retryable) return false;
    throw error;
  }
}
