/**
 * The activities as the campaign workflow calls them, with the timeouts and retries each needs.
 * Every activity has a bound: a failure that does not pass ends in a reason, never a silent loop.
 */
import { ActivityCancellationType, proxyActivities } from '@temporalio/workflow';
import type { createActivities } from '../../activities/index.ts';
import type { notifyActivities } from '../../activities/notify/index.ts';

type Activities = ReturnType<typeof createActivities>;

export const { loadJobs, readServiceLimits, cancelOutstanding, recordDecisions } =
  proxyActivities<Activities>({
    startToCloseTimeout: '1 minute',
    scheduleToCloseTimeout: '15 minutes',
    retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
  });

/**
 * A killed worker's creates and finishes are handed to another worker once this long passes
 * without a beat from them. They beat more often (activities/heartbeating.ts) and the worker sends
 * beats at least as often (worker/create-worker.ts HEARTBEAT_SENT_EVERY), so a beat lost in a short
 * stall of the server or the machine is no spurious timeout, while a campaign whose worker died
 * stands still only briefly (the SDK's default left campaigns idle per worker lost).
 */
const HEARTBEAT_TIMEOUT = '5 seconds';

/** Creates are waited for even when canceled, so every prediction they made is known and canceled. */
export const { createPredictions } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  // A service down this long ends the batch's jobs as failed, with the reason, not a silent wait.
  scheduleToCloseTimeout: '30 minutes',
  heartbeatTimeout: HEARTBEAT_TIMEOUT,
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  // Short waits: a create refused by a 5xx is worth trying again soon; Retry-After overrides this.
  retry: { initialInterval: '300 milliseconds', backoffCoefficient: 1.5, maximumInterval: '5 seconds' },
});

/**
 * Heartbeats every few seconds: a worker killed mid-wait is noticed quickly and another resumes.
 * The jobs of one step of a create batch, with their heirs.
 */
export const { finishPredictions } = proxyActivities<Activities>({
  startToCloseTimeout: '4 hours',
  scheduleToCloseTimeout: '24 hours',
  heartbeatTimeout: HEARTBEAT_TIMEOUT,
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 1.5, maximumInterval: '10 seconds' },
});

/**
 * The end-of-campaign sweep (workflows/sweep.ts): a listing of the output folder and a read of
 * the plan, bounded, and never worth failing a campaign over.
 */
export const { sweepUnfinished } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '1 second', maximumAttempts: 3 },
});

/**
 * A notice to one target (docs/notifications.md): a few attempts with backoff (1, 2, 4, 8 s), each
 * bounded, so a dead receiver costs the campaign's close at most about a minute and a half and
 * never its outcome. A receiver that refuses the notice (a 4xx) is not asked again.
 */
export const { deliverNotice } = proxyActivities<ReturnType<typeof notifyActivities>>({
  startToCloseTimeout: '15 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '8 seconds',
    maximumAttempts: 5,
  },
});
