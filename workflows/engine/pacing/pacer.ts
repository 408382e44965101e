/**
 * A token bucket for creates, run on the campaign clock (clock.ts: deterministic, unlike
 * Date.now()). The service refills its own bucket continuously, so pacing to the same rate keeps
 * 429s rare instead of discovering the limit by hitting it. Reading it changes nothing: the bucket
 * moves only when tokens are taken, creates paused or the rate set, each at a time the caller gives.
 * Plain data in the model (engine/model.ts), moved by the functions below.
 */
export interface Bucket {
  tokens: number;
  /** Campaign clock of the last change (later than now while creates are paused). */
  last: number;
  perSecond: number;
  /** At most one second of burst, as the service allows. */
  readonly burstSeconds: number;
}

/** A full bucket at `now`. */
export function bucket(perSecond: number, now: number, burstSeconds = 1): Bucket {
  return { tokens: Math.max(1, perSecond * burstSeconds), last: now, perSecond, burstSeconds };
}

/** From `now` on, tokens refill at `perSecond` (those until `now` at the rate before). */
export function setRate(b: Bucket, perSecond: number, now: number): void {
  moveTo(b, now);
  b.perSecond = perSecond;
  b.tokens = Math.min(b.tokens, capacity(b));
}

/** Whole tokens available at `now` (never negative: a debt is 0 available, repaid by refills). */
export function available(b: Bucket, now: number): number {
  return Math.max(0, Math.floor(tokensAt(b, now)));
}

/** May run into debt: a heir's create is charged after the fact (jobs/reports.ts). */
export function take(b: Bucket, count: number, now: number): void {
  moveTo(b, now);
  b.tokens -= count;
}

/**
 * Tokens taken for creates that were never sent (the job turned out cached or skipped) come
 * back, up to the bucket's capacity: a re-run walking recorded jobs is not paced as if it paid
 * for each. Not while paused: a Retry-After holds whatever was given back.
 */
export function giveBack(b: Bucket, count: number, now: number): void {
  if (now < b.last) return;
  moveTo(b, now);
  b.tokens = Math.min(capacity(b), b.tokens + count);
}

/** Pause all creates (the service said Retry-After). */
export function pauseUntil(b: Bucket, until: number, now: number): void {
  moveTo(b, now);
  b.tokens = Math.min(b.tokens, 0);
  b.last = Math.max(b.last, until);
}

/** Milliseconds from `now` until `count` tokens (one by default) are available. */
export function msUntilNext(b: Bucket, now: number, count = 1): number {
  const tokens = tokensAt(b, now);
  if (tokens >= count) return 0;
  const wait = ((count - tokens) / b.perSecond) * 1000;
  return Math.ceil(wait + Math.max(0, b.last - now));
}

function capacity(b: Bucket): number {
  return Math.max(1, b.perSecond * b.burstSeconds);
}

/** The bucket at `now`: refilled since the last change (or paused until later). */
function tokensAt(b: Bucket, now: number): number {
  if (now <= b.last) return b.tokens;
  return Math.min(capacity(b), b.tokens + ((now - b.last) / 1000) * b.perSecond);
}

function moveTo(b: Bucket, now: number): void {
  b.tokens = tokensAt(b, now);
  b.last = Math.max(b.last, now);
}
