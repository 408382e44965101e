/**
 * What the create and finish activities are given of a job: its index and take, and for a finish
 * its prediction, its step's deadline, its heir and whether an earlier run paid for it.
 */
import type { CreateItem, FinishBatchRequestItem } from '../../contract/activities.ts';
import type { InFlightJob, PendingJob, StepInfo } from '../../contract/campaign.ts';

/**
 * A job's index and take (and a reviewer's retake and prompt, and the fallback model of a refused
 * job, when given).
 */
export function itemOf({ job, regen, retake, prompt, model }: PendingJob): CreateItem {
  return {
    i: job.i,
    regen,
    ...(retake ? { retake } : {}),
    ...(prompt === undefined ? {} : { prompt }),
    ...(model === undefined ? {} : { model }),
  };
}

/**
 * The predictions of a finish batch; each held to its step's `timeout:` (an activity input, not a
 * timer). `resumed`: handed over by an earlier run.
 */
export function finishItemsOf(
  steps: readonly StepInfo[],
  flights: readonly InFlightJob[],
  resumed?: true,
): FinishBatchRequestItem[] {
  return flights.map(({ pending, predictionId, startedAt, heir, paidBefore }) => ({
    ...itemOf(pending),
    ...deadlineOf(steps, pending),
    predictionId,
    startedAt,
    resumed: resumed ?? false,
    ...(heir ? { heir: itemOf(heir) } : {}),
    ...(paidBefore && { paidBefore }),
  }));
}

function deadlineOf(steps: readonly StepInfo[], { job }: PendingJob): { timeoutMs?: number } {
  const timeoutMs = steps[job.step]?.timeoutMs;
  return timeoutMs === undefined ? {} : { timeoutMs };
}
