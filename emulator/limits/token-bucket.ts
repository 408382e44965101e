/**
 * A token bucket refilled continuously (not a fixed minute window), so a client pacing at R/s
 * is never refused and a burst drains only the bucket's capacity.
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

  constructor(
    private readonly capacity: () => number,
    now: number,
  ) {
    this.tokens = capacity();
    this.updatedAt = now;
  }

  /** Takes `count` tokens at once, or none. */
  take(count: number, now: number): Take {
    const capacity = this.capacity();
    const perMs = capacity / 60_000;
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
    const capacity = this.capacity();
    return Math.floor(Math.min(capacity, this.tokens + ((now - this.updatedAt) * capacity) / 60_000));
  }
}
