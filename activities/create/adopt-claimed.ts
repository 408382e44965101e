/**
 * Predictions this campaign created and claimed but never recorded (a campaign stopped by a full
 * disk or a deleted key, a worker lost between create and download) are adopted by the next
 * attempt or run instead of being created again: whatever key made them, and however long ago, so
 * nothing depends on the service remembering an idempotency key.
 *
 * One that is still running or has succeeded is adopted. One that failed or was canceled is
 * adopted only within the workflow run that made it (the claim's `made_by`: a retry of its
 * activity, or the next create of an heir whose finish batch was lost): that failure is the
 * job's, and the step's `retries` decide what follows, as if no worker had died. Made anew
 * instead, the failure was forgotten: a prediction neither a take nor a regeneration (the full
 * `cluster` drill counted 2,006 for 2,005). For a re-run it is made anew, as is one the service
 * forgot, under a key that names it (keys.ts, replacementKey), since the service would hand it
 * back under the old key.
 *
 * One an earlier run paid for and could not save (records/unsaved.ts) is adopted as `paidBefore`:
 * its finish fetches it again and adds nothing to this run's spend. One the content policy
 * flagged that no run recorded is recorded now and counted once (lateRefusal).
 */
import { retryRead, type ServiceClient, ServiceError } from '../../api/client/index.ts';
import { formatUsd } from '../../api/money.ts';
import { isContentRefusal, type Prediction } from '../../api/wire/index.ts';
import type { CreateOutcome } from '../../contract/activities.ts';
import type { CampaignClaims } from '../../records/claims-index.ts';
import { writeRefusal } from '../../records/refusals.ts';
import { wasUnsaved } from '../../records/unsaved.ts';
import type { Store } from '../../store/index.ts';
import { sameRun } from './attempt.ts';
import type { Ready } from './batch.ts';
import { replacementKey } from './keys.ts';

/** The prediction adopted for `entry`, or `entry` to create (under a key naming any dead claimed one). */
export async function adoptClaimed(
  client: ServiceClient,
  store: Store,
  claimed: CampaignClaims,
  entry: Ready,
): Promise<CreateOutcome | Ready> {
  let idempotencyKey = entry.idempotencyKey;
  for (
    let claim = await claimed.lookup(idempotencyKey);
    claim;
    claim = await claimed.lookup(idempotencyKey)
  ) {
    const { state, prediction } = await stateOf(client, claim.prediction_id);
    const at = Date.now();
    const adopted = { kind: 'created', i: entry.item.i, predictionId: claim.prediction_id, at } as const;
    if (state === 'live') {
      const paidBefore = await wasUnsaved(store, claim.campaign, claim.prediction_id);
      return { ...adopted, ...(paidBefore && { paidBefore }) };
    }
    if (state === 'ended' && sameRun(claim.made_by, entry.by)) return adopted;
    const late = prediction && (await lateRefusal(store, claim.campaign, entry, prediction));
    if (late) return late;
    idempotencyKey = replacementKey(idempotencyKey, claim.prediction_id);
  }
  return { ...entry, idempotencyKey };
}

/**
 * A flagged output of an earlier run that no finish recorded (a full disk refused its record and
 * stopped that run with the job kept): recorded now, and reported as the take's refusal with what
 * the service charged for it, so the step's `on_refusal` decides what follows and the money is
 * counted once. Null when it is not one, or was recorded (and so counted) already.
 */
async function lateRefusal(
  store: Store,
  campaign: string,
  entry: Ready,
  prediction: Prediction,
): Promise<CreateOutcome | null> {
  const charged = prediction.creditsUsed ?? 0;
  if (
    prediction.status !== 'failed' ||
    !prediction.error ||
    !isContentRefusal(prediction.error) ||
    charged === 0
  )
    return null;
  const message = prediction.error.message ?? `prediction ${prediction.id} was flagged`;
  const code = prediction.error.code ?? 'UNKNOWN';
  const recorded = await writeRefusal(store, campaign, {
    key: entry.job.key,
    take: entry.item.regen,
    model: entry.job.model,
    stage: 'output',
    code,
    message,
    credits_used: formatUsd(charged),
    prediction_id: prediction.id,
    at: new Date().toISOString(),
  });
  if (!recorded) return null;
  return { kind: 'rejected', i: entry.item.i, code, message, failure: 'refused', creditsUsed: charged };
}

type Seen = { readonly state: 'live' | 'ended' | 'gone'; readonly prediction?: Prediction };

/** `live`: running or succeeded; `ended`: failed or canceled; `gone`: forgotten by the service. */
async function stateOf(client: ServiceClient, predictionId: string): Promise<Seen> {
  try {
    const prediction = await retryRead(() => client.predictions.get(predictionId));
    const live = prediction.status === 'processing' || prediction.status === 'succeeded';
    return { state: live ? 'live' : 'ended', prediction };
  } catch (error) {
    // Forgotten by the service (404) or refused for good: nothing to wait for, make it again.
    if (error instanceof ServiceError && !error.retryable) return { state: 'gone' };
    throw error;
  }
}
