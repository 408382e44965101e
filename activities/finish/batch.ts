/**
 * Finishes the predictions of one create batch in one activity (contract/activities.ts,
 * FinishBatchRequest): each by finishJob (index.ts), sharing its work per prediction with any
 * other activity finishing it in this worker. A failure that stops the campaign is reported for
 * its item, so the batch's other results reach the workflow; any other failure fails the
 * activity, whose retry returns the items already recorded at once. Items still running a second
 * after one ended are reported `pending`, and the workflow finishes them in a batch of their own.
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

/**
 * How long an item that ended waits for the rest of its batch before the activity reports what
 * ended so far (docs/engine.md, "Batched finishes"): items that end together still come back in
 * one report, and a file saved in the first second is never held back by a slow one for longer.
 */
export const REPORT_AFTER_MS = 1_000;

export async function finishPredictions(
  deps: FinishDeps,
  loaded: LoadedPlan,
  manifest: Manifest,
  { items, ...context }: FinishBatchRequest,
  reportAfterMs = REPORT_AFTER_MS,
): Promise<FinishBatchItem[]> {
  return heartbeating(
    { predictions: items.length },
    async (activity) => {
      const settled: (PromiseSettledResult<JobResult> | undefined)[] = items.map(() => undefined);
      const work = items.map((item, n) => {
        const again = item.resumed || activity.info.attempt > 1;
        const request = { ...context, ...item, heir: item.heir ?? null };
        const attempt = { again, by: attemptOf(activity.info), restore: true };
        return deps.finishing
          .run(item.predictionId, () => finishJob(deps, loaded, manifest, request, attempt))
          .then(
            (value) => {
              settled[n] = { status: 'fulfilled', value };
            },
            (reason: unknown) => {
              settled[n] = { status: 'rejected', reason };
            },
          );
      });
      // Every item, or what ended by REPORT_AFTER_MS after the first one did: the rest go on in this
      // worker's shared work (shared-work.ts), which the workflow's next batch for them joins.
      let report: ReturnType<typeof setTimeout> | undefined;
      const early = Promise.race(work).then(
        () => new Promise<void>((resolve) => (report = setTimeout(resolve, reportAfterMs))),
      );
      try {
        // The shared work is not tied to this activity's cancellation: a canceled campaign cancels
        // its predictions upstream, and the waits then end with their canceled state.
        await Promise.race([Promise.all(work), early, activity.cancelled]);
      } finally {
        clearTimeout(report);
      }
      const at = Date.now();
      return settled.map((result) =>
        result === undefined ? { kind: 'pending' as const } : itemOf(result, at),
      );
    },
    { namesOutage: true },
  );
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
  // Unconverted: heartbeating classifies it, naming an outage it may be (../finish-outage.ts).
  throw result.reason;
}
