/**
 * A token bucket for creates, run on the campaign clock (workflows/clock.ts: deterministic, unlike
 * Date.now()). The service refills its own bucket continuously, so pacing to the same rate keeps
 * 429s rare instead of discovering the limit by hitting it.
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

  setRate(perSecond: number): void {
    this.perSecond = perSecond;
    this.tokens = Math.min(this.tokens, this.capacity());
  }

  /** Whole tokens available now (never negative: a debt is 0 available, repaid by refills). */
  available(now: number): number {
    this.refill(now);
    return Math.max(0, Math.floor(this.tokens));
  }

  /** May run into debt: a heir's create is charged after the fact (see campaign.ts). */
  take(count: number, now: number): void {
    this.refill(now);
    this.tokens -= count;
  }

  /** Pause all creates (the service said Retry-After). */
  pauseUntil(until: number, now: number): void {
    this.refill(now);
    this.tokens = Math.min(this.tokens, 0);
    this.last = Math.max(this.last, until);
  }

  /** Milliseconds until `count` tokens (one by default) are available. */
  msUntilNext(now: number, count = 1): number {
    this.refill(now);
    if (this.tokens >= count) return 0;
    const wait = ((count - this.tokens) / this.perSecond) * 1000;
    return Math.ceil(wait + Math.max(0, this.last - now));
  }

  private capacity(): number {
    return Math.max(1, this.perSecond * this.burstSeconds);
  }

  private refill(now: number): void {
    if (now <= this.last) return;
    this.tokens = Math.min(this.capacity(), this.tokens + ((now - this.last) / 1000) * this.perSecond);
    this.last = now;
  }
}
