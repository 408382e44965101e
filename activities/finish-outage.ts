/**
 * A finish that meets a service outage names it (contract/finish-outage.ts) instead of failing
 * its attempts with the bare service error, so `status` can show the pause. The time it was first
 * met travels from attempt to attempt in the heartbeat details, the one thing Temporal hands the
 * next attempt.
 */
import { ApplicationFailure, type Context } from '@temporalio/activity';
import { FINISH_OUTAGE_TYPE, FinishOutageDetails } from '../contract/finish-outage.ts';
import { isOutage } from './failure-kind.ts';

/** When the outage was first met by an earlier attempt of this activity; null when none did. */
export function outageSince(context: Context): number | null {
  const carried = FinishOutageDetails.safeParse(context.info.heartbeatDetails);
  return carried.success ? carried.data.unavailableSince : null;
}

/**
 * The failure to throw for `error`: an outage named, with its start, from the
 * OUTAGE_AFTER_ATTEMPTS-th attempt on; null for anything else (the usual classification applies).
 * `details` are the activity's own heartbeat details, kept beside the start.
 */
export function finishOutageFailure(
  error: unknown,
  context: Context,
  details: Record<string, unknown>,
): ApplicationFailure | null {
  if (!isOutage(error, context.info.attempt)) return null;
  const unavailableSince = outageSince(context) ?? Date.now();
  context.heartbeat({ ...details, unavailableSince });
  return ApplicationFailure.create({
    message: error.message,
    type: FINISH_OUTAGE_TYPE,
    nonRetryable: false,
    details: [{ unavailableSince }],
    ...(error.retryAfterMs !== null ? { nextRetryDelay: error.retryAfterMs } : {}),
  });
}
