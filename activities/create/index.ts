/**
 * Creates predictions for jobs the workflow picked. Never pays twice (decision 3):
 *  - every create carries an Idempotency-Key derived from the campaign, the job key and its
 *    regeneration (keys.ts);
 *  - a retried attempt may follow a request that reached the service ("maybe created": a timeout,
 *    a reset, a 5xx, or a worker killed mid-call), so it first adopts what an earlier attempt
 *    made (reconcile.ts) and creates only the rest (batch.ts);
 *  - a prediction this campaign claimed but never recorded is adopted (adopt-claimed.ts);
 *  - a replayed key's prediction another job has claimed is made again under a new key (taken.ts);
 *  - every prediction made is claimed (claims.ts) before the attempt returns or retries, so a
 *    cancel finds it and a later attempt never adopts it for another job;
 *  - what a refusal does is the failure policy's (contract/failure-policy.ts).
 */
import type { CreateOutcome, CreateRequest } from '../../contract/activities.ts';
import type { Manifest } from '../../records/manifest.ts';
import type { LoadedPlan } from '../../records/plan-store.ts';
import { isOutage } from '../failure-kind.ts';
import { heartbeating } from '../heartbeating.ts';
import { attemptOf } from './attempt.ts';
import type { CreateDeps } from './deps.ts';
import { prepareCreates } from './prepare.ts';
import { type Reconcile, sendPrepared } from './send.ts';

/** The activity. */
export async function createPredictions(
  deps: CreateDeps,
  loaded: LoadedPlan,
  manifest: Manifest,
  request: CreateRequest,
): Promise<CreateOutcome[]> {
  // Heartbeats for the whole attempt: a slow batch reply must not look like a dead worker, or a
  // second attempt would create while the first is still waiting for its answer.
  return heartbeating(undefined, async ({ info }) => {
    // A retried attempt, or jobs an outage sent back, may follow creates that reached the service.
    const since = Math.min(
      request.reconcileSince ?? Number.POSITIVE_INFINITY,
      info.attempt > 1 ? info.scheduledTimestampMs : Number.POSITIVE_INFINITY,
    );
    const reconcile = Number.isFinite(since) ? { since } : null;
    try {
      return await createAll(deps, loaded, manifest, request, attemptOf(info), reconcile);
    } catch (error) {
      if (!isOutage(error, info.attempt)) throw error;
      // The service stays down: hand the jobs back (the workflow pauses) rather than retry on.
      // Whatever they may have created since the first attempt is adopted when they come back.
      const at = Date.now();
      const from = Math.min(since, info.scheduledTimestampMs);
      return request.items.map(({ i }) => ({
        kind: 'unavailable',
        i,
        reason: error.message,
        since: from,
        at,
      }));
    }
  });
}

/**
 * Creates the jobs of `request` (claims included). `by` names the activity (attempt.ts).
 */
export async function createAll(
  deps: CreateDeps,
  loaded: LoadedPlan,
  manifest: Manifest,
  request: CreateRequest,
  by: string,
  reconcile: Reconcile | null,
): Promise<CreateOutcome[]> {
  const prepared = await prepareCreates(deps, loaded, manifest, request, by);
  return sendPrepared(deps, manifest, request, prepared, reconcile);
}
