/**
 * Predictions this campaign created and claimed but never recorded (a campaign stopped by a full
 * disk or a deleted key, a worker lost between create and download) are adopted by the next
 * attempt or run instead of being created again: whatever key made them, and however long ago, so
 * nothing depends on the service remembering an idempotency key.
 *
 * One that is still running or has succeeded is adopted. One that failed or was canceled is
 * adopted only by a retry of the activity that made it (the claim's `made_by`): that failure is
 * the job's, and the step's `retries` decide what follows, as if no worker had died. For anyone
 * else (a re-run) it is made anew, as is one the service forgot, under a key that names it
 * (keys.ts, replacementKey), since the service would hand it back under the old key.
 */
import { retryRead, type ServiceClient, ServiceError } from '../../api/client/index.ts';
import type { CreateOutcome } from '../../contract/activities.ts';
import type { CampaignClaims } from '../../records/claims-index.ts';
import type { Ready } from './batch.ts';
import { replacementKey } from './keys.ts';

/** The prediction adopted for `entry`, or `entry` to create (under a key naming any dead claimed one). */
export async function adoptClaimed(
  client: ServiceClient,
  claimed: CampaignClaims,
  entry: Ready,
): Promise<CreateOutcome | Ready> {
  let idempotencyKey = entry.idempotencyKey;
  for (
    let claim = await claimed.lookup(idempotencyKey);
    claim;
    claim = await claimed.lookup(idempotencyKey)
  ) {
    const state = await stateOf(client, claim.prediction_id);
    if (state === 'live' || (state === 'ended' && claim.made_by === entry.by)) {
      return { kind: 'created', i: entry.item.i, predictionId: claim.prediction_id, at: Date.now() };
    }
    idempotencyKey = replacementKey(idempotencyKey, claim.prediction_id);
  }
  return { ...entry, idempotencyKey };
}

/** `live`: running or succeeded; `ended`: failed or canceled; `gone`: forgotten by the service. */
async function stateOf(client: ServiceClient, predictionId: string): Promise<'live' | 'ended' | 'gone'> {
  try {
    const prediction = await retryRead(() => client.predictions.get(predictionId));
    return prediction.status === 'processing' || prediction.status === 'succeeded' ? 'live' : 'ended';
  } catch (error) {
    // Forgotten by the service (404) or refused for good: nothing to wait for, make it again.
    if (error instanceof ServiceError && !error.retryable) return 'gone';
    throw error;
  }
}
