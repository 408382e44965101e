/**
 * A token bucket refilled continuously (not a fixed minute window), so a client pacing at R/s
 * is never refused. It holds one second of tokens: a limit of 600 per minute means 10 per second
 * with bursts of 10, not 600 at once, so no client can beat the rate by bursting (the benchmarks'
 * lower bound N/R relies on it).
 */
export interface Take {
  readonly ok: boolean;
  /** Whole tokens left after this take. */
  readonly remaining: number;
  /** When ok is false: how long until enough tokens are back. */
  readonly retryAfterMs: number;
  /** How long until the bucket is full again. */
  readonly resetMs: number;
}

export class TokenBucket {
  private tokens: number;
  private updatedAt: number;

  private readonly perMinute: () => number;

  constructor(perMinute: () => number, now: number) {
    this.perMinute = perMinute;

    this.tokens = this.capacity();
    this.updatedAt = now;
  }

  /** One second's worth, at least one token. */
  capacity(): number {
    return Math.max(1, this.perMinute() / 60);
  }

  /** Takes `count` tokens at once, or none. */
  take(count: number, now: number): Take {
    const capacity = this.capacity();
    const perMs = this.perMinute() / 60_000;
    this.tokens = Math.min(capacity, this.tokens + (now - this.updatedAt) * perMs);
    this.updatedAt = now;
    const ok = this.tokens >= count;
    if (ok) this.tokens -= count;
    return {
      ok,
      remaining: Math.floor(this.tokens),
      retryAfterMs: ok ? 0 : Math.ceil((count - this.tokens) / perMs),
      resetMs: Math.ceil((capacity - this.tokens) / perMs),
    };
  }

  peek(now: number): number {
    return Math.floor(
      Math.min(this.capacity(), this.tokens + ((now - this.updatedAt) * this.perMinute()) / 60_000),
    );
  }
}
