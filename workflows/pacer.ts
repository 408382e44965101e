/**
 * A token bucket for creates, run on the campaign clock (workflows/clock.ts: deterministic, unlike
 * Date.now()). The service refills its own bucket continuously, so pacing to the same rate keeps
 * 429s rare instead of discovering the limit by hitting it. Reading it changes nothing: the bucket
 * moves only when tokens are taken, creates paused or the rate set, each at a time the caller gives.
 */
export class Pacer {
  private tokens: number;
  private last: number;

  private perSecond: number;
  /** At most one second of burst, as the service allows. */
  private readonly burstSeconds: number;

  constructor(perSecond: number, now: number, burstSeconds = 1) {
    this.perSecond = perSecond;
    this.burstSeconds = burstSeconds;

    this.tokens = Math.max(1, perSecond * burstSeconds);
    this.last = now;
  }

  /** From `now` on, tokens refill at `perSecond` (those until `now` at the rate before). */
  setRate(perSecond: number, now: number): void {
    this.moveTo(now);
    this.perSecond = perSecond;
    this.tokens = Math.min(this.tokens, this.capacity());
  }

  /** Whole tokens available at `now` (never negative: a debt is 0 available, repaid by refills). */
  available(now: number): number {
    return Math.max(0, Math.floor(this.tokensAt(now)));
  }

  /** May run into debt: a heir's create is charged after the fact (reducer/jobs.ts). */
  take(count: number, now: number): void {
    this.moveTo(now);
    this.tokens -= count;
  }

  /**
   * Tokens taken for creates that were never sent (the job turned out cached or skipped) come
   * back, up to the bucket's capacity: a re-run walking recorded jobs is not paced as if it paid
   * for each. Not while paused: a Retry-After holds whatever was given back.
   */
  giveBack(count: number, now: number): void {
    if (now < this.last) return;
    this.moveTo(now);
    this.tokens = Math.min(this.capacity(), this.tokens + count);
  }

  /** Pause all creates (the service said Retry-After). */
  pauseUntil(until: number, now: number): void {
    this.moveTo(now);
    this.tokens = Math.min(this.tokens, 0);
    this.last = Math.max(this.last, until);
  }

  /** Milliseconds from `now` until `count` tokens (one by default) are available. */
  msUntilNext(now: number, count = 1): number {
    const tokens = this.tokensAt(now);
    if (tokens >= count) return 0;
    const wait = ((count - tokens) / this.perSecond) * 1000;
    return Math.ceil(wait + Math.max(0, this.last - now));
  }

  private capacity(): number {
    return Math.max(1, this.perSecond * this.burstSeconds);
  }

  /** The bucket at `now`: refilled since the last change (or paused until later). */
  private tokensAt(now: number): number {
    if (now <= this.last) return this.tokens;
    return Math.min(this.capacity(), this.tokens + ((now - this.last) / 1000) * this.perSecond);
  }

  private moveTo(now: number): void {
    this.tokens = this.tokensAt(now);
    this.last = Math.max(this.last, now);
  }
}
