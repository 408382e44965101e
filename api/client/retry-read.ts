/**
 * A few quick retries for reads that are safe to repeat (GET), inside one activity attempt. A
 * transient 5xx on a lookup should not cost a whole activity retry with Temporal's backoff; a
 * persistent one still fails the attempt, and Temporal takes over from there.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ServiceError } from './errors.ts';

const ATTEMPTS = 4;
const FIRST_DELAY_MS = 100;
/** Longer waits (a Retry-After of seconds) are Temporal's job, not a loop inside an activity. */
const MAX_INLINE_DELAY_MS = 2_000;

export async function retryRead<T>(read: () => Promise<T>, signal?: AbortSignal): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await read();
    } catch (error) {
      const delay =
        error instanceof ServiceError ? (error.retryAfterMs ?? FIRST_DELAY_MS * 2 ** (attempt - 1)) : 0;
      const retry =
        error instanceof ServiceError &&
        error.retryable &&
        attempt < ATTEMPTS &&
        delay <= MAX_INLINE_DELAY_MS;
      if (!retry || signal?.aborted) throw error;
      await sleep(delay, undefined, { signal });
    }
  }
}
