/**
 * Finishes the predictions of one create batch in one activity (contract/activities.ts,
 * FinishBatchRequest): each as finishPrediction does, sharing its work per prediction with any
 * other activity finishing it in this worker. A failure that stops the campaign is reported for
 * its item, so the batch's other results reach the workflow; any other failure fails the
 * activity, whose retry returns the items already recorded at once.
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { FinishBatchItem, FinishBatchRequest } from '../../contract/activities.ts';
import { effectOf, isFailureKind } from '../../contract/failure-policy.ts';
import type { Manifest } from '../../records/manifest.ts';
import type { LoadedPlan } from '../../records/plan-store.ts';
import { attemptOf } from '../create/attempt.ts';
import { heartbeating } from '../heartbeating.ts';
import { retryableFailure } from '../service-failure.ts';
import { type FinishDeps, finishJob, type JobResult } from './index.ts';

export async function finishPredictions(
  deps: FinishDeps,
  loaded: LoadedPlan,
  manifest: Manifest,
  { items, ...context }: FinishBatchRequest,
): Promise<FinishBatchItem[]> {
  return heartbeating({ predictions: items.length }, async (activity) => {
    const settled = Promise.allSettled(
      items.map((item) => {
        const again = item.resumed || activity.info.attempt > 1;
        const request = { ...context, ...item, heir: null };
        const attempt = { again, by: attemptOf(activity.info) };
        return deps.finishing.run(item.predictionId, () =>
          finishJob(deps, loaded, manifest, request, attempt),
        );
      }),
    );
    // As in finishPrediction: the shared work is not tied to this activity's cancellation.
    const results = await Promise.race([settled, activity.cancelled]);
    const at = Date.now();
    return results.map((result) => itemOf(result, at));
  });
}

function itemOf(result: PromiseSettledResult<JobResult>, at: number): FinishBatchItem {
  if (result.status === 'fulfilled') return { kind: 'finished', ...result.value, at };
  const failure = retryableFailure(result.reason);
  if (
    failure instanceof ApplicationFailure &&
    isFailureKind(failure.type) &&
    effectOf(failure.type).kind === 'stop_campaign'
  ) {
    return { kind: 'stopped', failure: failure.type, message: failure.message };
  }
  throw failure;
}
