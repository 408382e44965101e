/**
 * Rate limits per API key (by key id, so rotating a key keeps its budget): creates per minute
 * (a batch item counts one), other requests per minute, and predictions in flight. Every decision
 * yields the `X-RateLimit-*` headers; a refusal is a 429 with `Retry-After` (whole seconds) and
 * `retry-after-ms` (exact).
 */
import { performance } from 'node:perf_hooks';
import type { RateLimits } from '../../api/wire/index.ts';
import { ApiError } from '../http/errors.ts';
import { checkLimits, type Limits } from '../options.ts';
import { type Take, TokenBucket } from './token-bucket.ts';

export type LimitKind = 'create' | 'request';

interface KeyState {
  readonly creates: TokenBucket;
  readonly requests: TokenBucket;
  inFlight: number;
}

export class RateLimiter {
  private readonly keys = new Map<string, KeyState>();

  private limits: Limits;
  /** How long a client refused for too many in flight should wait (scaled model latency). */
  private readonly inFlightRetryMs: () => number;
  private readonly onRefused: () => void;

  constructor(limits: Limits, inFlightRetryMs: () => number, onRefused: () => void) {
    this.limits = limits;
    this.inFlightRetryMs = inFlightRetryMs;
    this.onRefused = onRefused;
  }

  get settings(): Limits {
    return { ...this.limits };
  }

  set(changes: Partial<Limits>): void {
    this.limits = checkLimits({ ...this.limits, ...changes });
  }

  /** Takes `count` tokens of `kind`; returns the headers to send, or throws a 429. */
  take(keyId: string, kind: LimitKind, count = 1): Record<string, string> {
    const state = this.state(keyId);
    const bucket = kind === 'create' ? state.creates : state.requests;
    const limit = kind === 'create' ? this.limits.createsPerMinute : this.limits.requestsPerMinute;
    if (count > bucket.capacity()) {
      throw new ApiError(
        'INVALID_REQUEST',
        `a batch of ${count} exceeds the burst of ${Math.floor(bucket.capacity())} ${kind}s (one second at ${limit} per minute)`,
      );
    }
    const take = bucket.take(count, performance.now());
    const headers = rateHeaders(limit, take);
    if (!take.ok) {
      throw this.refuse(
        'RATE_LIMITED',
        `rate limit of ${limit} ${kind}s per minute reached`,
        take.retryAfterMs,
        headers,
      );
    }
    return headers;
  }

  /** Reserves one in-flight slot for a new prediction, or throws a 429. */
  reserveInFlight(keyId: string): void {
    const state = this.state(keyId);
    if (state.inFlight >= this.limits.maxInFlight) {
      throw this.refuse(
        'TOO_MANY_IN_FLIGHT',
        `${state.inFlight} predictions in flight; the limit is ${this.limits.maxInFlight}`,
        this.inFlightRetryMs(),
        {},
      );
    }
    state.inFlight++;
  }

  /** A prediction restored from the state file holds its slot again, whatever the limit is now. */
  holdInFlight(keyId: string): void {
    this.state(keyId).inFlight++;
  }

  releaseInFlight(keyId: string): void {
    const state = this.state(keyId);
    state.inFlight = Math.max(0, state.inFlight - 1);
  }

  report(keyId: string): RateLimits {
    const state = this.state(keyId);
    const now = performance.now();
    return {
      creates_per_minute: this.limits.createsPerMinute,
      requests_per_minute: this.limits.requestsPerMinute,
      max_in_flight: this.limits.maxInFlight,
      remaining: {
        creates: state.creates.peek(now),
        requests: state.requests.peek(now),
        in_flight: Math.max(0, this.limits.maxInFlight - state.inFlight),
      },
    };
  }

  private refuse(
    code: 'RATE_LIMITED' | 'TOO_MANY_IN_FLIGHT',
    message: string,
    retryAfterMs: number,
    headers: Record<string, string>,
  ): ApiError {
    this.onRefused();
    const ms = Math.max(1, Math.ceil(retryAfterMs));
    return new ApiError(code, `${message}; retry in ${ms} ms`, {
      headers: { ...headers, 'retry-after': String(Math.ceil(ms / 1000)), 'retry-after-ms': String(ms) },
    });
  }

  private state(keyId: string): KeyState {
    let state = this.keys.get(keyId);
    if (!state) {
      const now = performance.now();
      state = {
        creates: new TokenBucket(() => this.limits.createsPerMinute, now),
        requests: new TokenBucket(() => this.limits.requestsPerMinute, now),
        inFlight: 0,
      };
      this.keys.set(keyId, state);
    }
    return state;
  }
}

function rateHeaders(limit: number, take: Take): Record<string, string> {
  return {
    'x-ratelimit-limit': String(limit),
    'x-ratelimit-remaining': String(take.remaining),
    // Seconds until the bucket is full again (a delta, not an epoch).
    'x-ratelimit-reset': String(Math.ceil(take.resetMs / 1000)),
  };
}
