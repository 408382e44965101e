/**
 * A service outage as the campaign lives through it (failure kind `service_unavailable`): while
 * the service answers 5xx, times out or refuses connections, no create is sent; the pause backs
 * off (5 s, 10 s, 20 s … at most a minute) each time a try after a pause meets the outage again,
 * and ends at the first create the service answers. Jobs sent back meanwhile are not failed: an
 * outage of an hour costs nothing but the hour. Deterministic: times are the campaign clock's.
 */
import type { CampaignProgress } from '../contract/campaign.ts';

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

export class Outage {
  current: OutageNow | null = null;
  /**
   * Worker clock from which the creates of jobs sent back may have reached the service: their
   * next create adopts what was made since (reconcile.ts). Null once every one was sent again.
   */
  reconcileSince: number | null = null;
  private readonly sentBack = new Set<number>();

  /**
   * Job `i` came back unavailable at `now` (null: a read of the limits did). Returns the pause to apply when this is news (the first
   * failure, or a try after the last pause ended), null when the pause in force already covers it
   * (the other batches that were under way when the service went down).
   */
  down(i: number | null, reason: string, sinceWorker: number | null, now: number): OutageNow | null {
    // A read of the limits meets an outage too, and sends no job back (creates nothing).
    if (i !== null) this.sentBack.add(i);
    if (sinceWorker !== null) this.reconcileSince = Math.min(this.reconcileSince ?? sinceWorker, sinceWorker);
    const was = this.current;
    if (was !== null && now < was.until) {
      this.current = { ...was, reason };
      return null;
    }
    const pauses = (was?.pauses ?? 0) + 1;
    const ms = Math.min(OUTAGE_MAX_PAUSE_MS, OUTAGE_FIRST_PAUSE_MS * 2 ** (pauses - 1));
    this.current = { reason, since: was?.since ?? now, until: now + ms, pauses };
    return this.current;
  }

  /** Job `i`'s create settled otherwise (created, cached, refused…): no reconciling for it. */
  settled(i: number): void {
    if (this.sentBack.delete(i) && this.sentBack.size === 0) this.reconcileSince = null;
  }

  /** The service created a prediction: the outage, if any, is over; returns it for the log. */
  back(): OutageNow | null {
    const ended = this.current;
    this.current = null;
    return ended;
  }
}

/** The progress to publish, naming the pause while one is in force (`status` shows it). */
export function withPause(progress: CampaignProgress, outage: OutageNow | null): CampaignProgress {
  if (outage === null || progress.outcome !== 'running') return progress;
  const { reason, since, until } = outage;
  return { ...progress, paused: { kind: 'service_unavailable', reason, since, until } };
}
