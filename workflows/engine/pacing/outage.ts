/**
 * A service outage as the campaign lives through it (failure kind `service_unavailable`): while
 * the service answers 5xx, times out or refuses connections, no create is sent; the pause backs
 * off (5 s, 10 s, 20 s … at most a minute) each time a try after a pause meets the outage again,
 * and ends at the first create the service answers. Jobs sent back meanwhile are not failed: an
 * outage of an hour costs nothing but the hour. Deterministic: times are the campaign clock's.
 */
import type { CampaignProgress } from '../../../contract/campaign.ts';

export const OUTAGE_FIRST_PAUSE_MS = 5_000;
export const OUTAGE_MAX_PAUSE_MS = 60_000;

export interface OutageNow {
  /** The service's words for the last failure (redacted by the client). */
  readonly reason: string;
  /** Campaign clock when the outage was first met. */
  readonly since: number;
  /** Campaign clock of the next try: no create is sent before it. */
  readonly until: number;
  /** Pauses so far: each try after one that met the outage doubles the next. */
  readonly pauses: number;
}

/** The outage as state (plain data in RunState): what is in force and what was sent back meanwhile. */
export interface Outage {
  current: OutageNow | null;
  /**
   * Worker clock from which the creates of jobs sent back may have reached the service: their
   * next create adopts what was made since (reconcile.ts). Null once every one was sent again.
   */
  reconcileSince: number | null;
  /** Jobs sent back unavailable and not settled since (at most the creates of one moment). */
  sentBack: number[];
}

export function noOutage(): Outage {
  return { current: null, reconcileSince: null, sentBack: [] };
}

/**
 * Job `i` came back unavailable at `now` (null: a read of the limits did). Returns the pause to
 * apply when this is news (the first failure, or a try after the last pause ended), null when the
 * pause in force already covers it (the other batches that were under way when the service went
 * down).
 */
export function down(
  o: Outage,
  i: number | null,
  reason: string,
  sinceWorker: number | null,
  now: number,
): OutageNow | null {
  // A read of the limits meets an outage too, and sends no job back (creates nothing).
  if (i !== null && !o.sentBack.includes(i)) o.sentBack.push(i);
  if (sinceWorker !== null) o.reconcileSince = Math.min(o.reconcileSince ?? sinceWorker, sinceWorker);
  const was = o.current;
  if (was !== null && now < was.until) {
    o.current = { ...was, reason };
    return null;
  }
  const pauses = (was?.pauses ?? 0) + 1;
  const ms = Math.min(OUTAGE_MAX_PAUSE_MS, OUTAGE_FIRST_PAUSE_MS * 2 ** (pauses - 1));
  o.current = { reason, since: was?.since ?? now, until: now + ms, pauses };
  return o.current;
}

/** Job `i`'s create settled otherwise (created, cached, refused…): no reconciling for it. */
export function settled(o: Outage, i: number): void {
  if (o.sentBack.length === 0) return;
  const at = o.sentBack.indexOf(i);
  if (at < 0) return;
  o.sentBack.splice(at, 1);
  if (o.sentBack.length === 0) o.reconcileSince = null;
}

/** The service created a prediction: the outage, if any, is over; returns it for the log. */
export function back(o: Outage): OutageNow | null {
  const ended = o.current;
  o.current = null;
  return ended;
}

/** The progress to publish, naming the pause while one is in force (`status` shows it). */
export function withPause(progress: CampaignProgress, outage: OutageNow | null): CampaignProgress {
  if (outage === null || progress.outcome !== 'running') return progress;
  const { reason, since, until } = outage;
  return { ...progress, paused: { kind: 'service_unavailable', reason, since, until } };
}
