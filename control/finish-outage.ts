/**
 * The pause `status` shows while finishes wait out a service outage (contract/finish-outage.ts).
 * Creates that meet an outage pause the campaign and its progress says so; a finish retries in
 * its activity, which the workflow never hears of, so the campaign's own progress stays silent.
 * The server's record of the pending activities does show it: a finish waiting for its next try
 * whose last attempt failed naming the outage. Read from the same describe() as the memo: no
 * query, no worker asked.
 */
import type { Client } from '@temporalio/client';
import type { CampaignProgress } from '../contract/campaign.ts';
import { FINISH_OUTAGE_TYPE, FinishOutageDetails } from '../contract/finish-outage.ts';
import { msOf, type Timestamp } from './timestamp.ts';

/** PENDING_ACTIVITY_STATE_SCHEDULED: waiting for its next attempt (the enum lives in @temporalio/proto, not a dependency). */
const SCHEDULED = 1;

/** The part of a pending activity's record read here (temporal.api.workflow.v1.PendingActivityInfo). */
export interface PendingActivity {
  readonly activityType?: { readonly name?: string | null } | null;
  readonly state?: number | null;
  readonly nextAttemptScheduleTime?: Timestamp | null;
  readonly lastFailure?: {
    readonly message?: string | null;
    readonly applicationFailureInfo?: {
      readonly type?: string | null;
      readonly details?: { readonly payloads?: readonly unknown[] | null } | null;
    } | null;
  } | null;
}

/**
 * The pause to show for finishes waiting out an outage, or undefined when none is: since the
 * earliest of them first met it, until the soonest next try, in the service's words.
 */
export function finishOutagePause(
  pending: readonly PendingActivity[],
  decode: (payload: unknown) => unknown,
  now: number,
): CampaignProgress['paused'] {
  let pause: CampaignProgress['paused'];
  for (const activity of pending) {
    const info = activity.lastFailure?.applicationFailureInfo;
    if (!activity.activityType?.name?.startsWith('finish') || activity.state !== SCHEDULED) continue;
    if (info?.type !== FINISH_OUTAGE_TYPE) continue;
    const details = FinishOutageDetails.safeParse(safely(decode, info.details?.payloads?.[0]));
    const since = details.success ? details.data.unavailableSince : now;
    const until = msOf(activity.nextAttemptScheduleTime) ?? now;
    pause = {
      kind: 'service_unavailable',
      reason: activity.lastFailure?.message ?? 'the service is unavailable',
      since: Math.min(since, pause?.since ?? since),
      until: Math.min(until, pause?.until ?? until),
    };
  }
  return pause;
}

function safely(decode: (payload: unknown) => unknown, payload: unknown): unknown {
  try {
    return payload === undefined ? undefined : decode(payload);
  } catch {
    return undefined;
  }
}

/** The client's payload converter, as finishOutagePause's `decode`. */
export function decoderOf(client: Client): (payload: unknown) => unknown {
  const converter = client.options.loadedDataConverter.payloadConverter;
  return (payload) => converter.fromPayload(payload as Parameters<typeof converter.fromPayload>[0]);
}
