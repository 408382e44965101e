/**
 * Runs an activity's work while heartbeating every few seconds, so a dead worker is noticed
 * within the heartbeat timeout rather than at the start-to-close limit, and turns service errors
 * into activity failures (retryable or not, with the service's Retry-After).
 */
import { Context } from '@temporalio/activity';
import { finishOutageFailure, outageSince } from './finish-outage.ts';
import { retryableFailure } from './service-failure.ts';

/**
 * The first beat comes after this long, not at the start: most activities (a 1 s prediction and
 * its download) end before it and send none. A heartbeat is an RPC and a billed action per
 * activity; a worker killed before its first beat is still noticed at the heartbeat timeout, which
 * counts from the activity's start.
 */
const HEARTBEAT_EVERY_MS = 2_000;

/**
 * `namesOutage`: the finishes, whose retries the workflow never sees, name a service outage in
 * their failures (finish-outage.ts); their beats carry its start on to the next attempt.
 */
export async function heartbeating<T>(
  details: Record<string, unknown> | undefined,
  work: (context: Context) => Promise<T>,
  { namesOutage = false }: { namesOutage?: boolean } = {},
): Promise<T> {
  const context = Context.current();
  const since = namesOutage ? outageSince(context) : null;
  const beating = since === null ? details : { ...details, unavailableSince: since };
  const beat = setInterval(() => context.heartbeat(beating), HEARTBEAT_EVERY_MS);
  try {
    return await work(context);
  } catch (error) {
    throw (namesOutage && finishOutageFailure(error, context, details ?? {})) || retryableFailure(error);
  } finally {
    clearInterval(beat);
  }
}
