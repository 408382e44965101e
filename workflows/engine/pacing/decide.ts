/**
 * What the campaign does next, as pure functions of what it knows: the tick
 * (engine/tick.ts) turns the command `decide` returns into effects. Every pacing, drain and roll-over rule
 * lives here and is tested as a table of situations (test/engine/decide.test.ts), without a server.
 * Which jobs may start (parents, slots, budget) is the selection rule: jobs/selection.ts.
 */

/** Most predictions created by one activity (one batch request). */
export const MAX_BATCH = 50;
/** Shortest pause between paced submissions: fewer, larger batches keep the history small. */
export const MIN_PACING_MS = 100;
/**
 * Re-reading the service's limits after a 429 happens at most this often. No heir is named while
 * the limits are stale (mayNameHeir), so each second a 429 leaves them unread is a second of slots
 * refilled through the loop instead of handed over, and those batch creates on top of the heirs'
 * meet more 429s: a campaign whose window binds as hard as its rate loses pace to a longer
 * interval (docs/benchmarks.md, "saturation-10k"). A read a second costs one request.
 */
export const LIMITS_REREAD_MS = 1_000;
/** Heirs are used while C / latency stays within this factor of the create rate (see mayNameHeir). */
export const CHAIN_RATE_MARGIN = 1.05;
/**
 * The latency assumed before any is measured: generations take a second or more, so a campaign
 * whose window binds at that latency names heirs from its first wave, rather than waiting for the
 * first prediction to end while its slots idle. A shorter real latency shows in the first results
 * and turns heirs off from then on.
 */
export const ASSUMED_LATENCY_MS = 1_000;
/**
 * Continue-as-new drains first (decision 6): a run that completes while activity results keep
 * arriving has its last task refused by the server (UnhandledCommand), and the SDK then replays
 * the whole history, during which more results arrive: seconds lost per roll-over. A drain costs
 * about one prediction latency, so runs should be long: our servers suggest continue-as-new later
 * than Temporal's default (worker/dev-server.ts, docker-compose.yml), and this ceiling, lower with
 * more jobs in flight, leaves room under the server's limit for the drain's own events.
 * Predictions still running after MAX_DRAIN_MS (long videos) go on in the next run.
 */
export const MIN_EVENTS_PER_RUN = 2_000;
export const MAX_DRAIN_MS = 5_000;
/**
 * The ceiling: a worker that takes over a run (its predecessor killed, or the run evicted from its
 * cache) replays the whole history within one workflow task, and a history near the server's limit
 * takes the SDK longer than the task timeout to replay: the replacement worker times out again and
 * again while the campaign makes nothing. A run this long replays well within the timeout, at the
 * cost of one more roll-over (a short drain) per run. Each job in flight still adds history events
 * while a run drains, so room is left for them (docs/benchmarks.md, "field drill").
 */
const MAX_EVENTS = 5_000;
const EVENTS_PER_DRAINING_JOB = 3;

export type Command =
  /** Nothing left to do: the campaign ends with its outcome. */
  | { readonly kind: 'complete' }
  /** The history is long enough: stop submitting and let work in flight land. */
  | { readonly kind: 'start-drain' }
  /** Drained (or out of drain time): continue as new, carrying what is still in flight. */
  | { readonly kind: 'roll-over' }
  /** A 429 said the service's limits may have changed. */
  | { readonly kind: 'read-limits' }
  /** Read the next `count` jobs of the plan into the window. */
  | { readonly kind: 'load-jobs'; readonly count: number }
  /** Pick up to `max` jobs the selection rule allows and create them, one batch request. */
  | { readonly kind: 'submit'; readonly max: number }
  /** A review decided: read the plan indexes it released (descendants to run or skip, a job to retake). */
  | { readonly kind: 'read-released' }
  /** Takes awaiting review past their step's timeout: decide them by `on_timeout`. */
  | { readonly kind: 'time-out-reviews' }
  /** Until an activity reports (or the campaign is done), or at most `ms` when set. */
  | { readonly kind: 'wait'; readonly ms: number | null };

/** What the campaign knows when it decides. */
export interface Situation {
  readonly done: boolean;
  readonly draining: boolean;
  /** The history suggests continuing as new (server's suggestion or our ceiling). */
  readonly rollOverDue: boolean;
  /** Milliseconds of drain time left (≤ 0: out of time). */
  readonly drainLeftMs: number;
  /** Create activities under way: they always land before a roll-over. */
  readonly creating: number;
  readonly active: number;
  readonly waiting: number;
  readonly maxInFlight: number;
  /** Jobs the window wants from the plan. */
  readonly wanted: number;
  readonly limitsStale: boolean;
  readonly msSinceLimitsRead: number;
  /** Whole create tokens available now, and the time until the next one. */
  readonly tokens: number;
  readonly msUntilToken: number;
  /** Creates gathered into one batch while the rate, not the slots, binds (batchWorth), and the time until that many tokens. */
  readonly minBatch: number;
  readonly msUntilBatch: number;
  /** Review gates (absent: none): decisions released plan indexes to read; a take timed out. */
  readonly released?: boolean;
  readonly reviewsDue?: boolean;
}

export function decide(s: Situation): Command {
  if (s.done) return { kind: 'complete' };
  if (!s.draining && s.rollOverDue) return { kind: 'start-drain' };
  // Creates under way always land first (their predictions need ids to be handed over).
  if (s.draining && s.creating === 0 && (s.active === 0 || s.drainLeftMs <= 0)) return { kind: 'roll-over' };
  if (s.limitsStale && s.msSinceLimitsRead >= LIMITS_REREAD_MS) return { kind: 'read-limits' };
  if (s.draining) return { kind: 'wait', ms: Math.max(MIN_PACING_MS, s.drainLeftMs) };
  if (s.reviewsDue) return { kind: 'time-out-reviews' };
  if (s.released) return { kind: 'read-released' };
  if (s.wanted > 0 && s.waiting < s.maxInFlight) return { kind: 'load-jobs', count: s.wanted };
  const tokens = s.tokens;
  if (tokens > 0 && tokens < s.minBatch && gathers(s, s.minBatch)) {
    return { kind: 'wait', ms: Math.max(1, s.msUntilBatch) };
  }
  // The executor waits for a change when the selection rule lets no job start.
  if (tokens > 0) return { kind: 'submit', max: Math.min(tokens, MAX_BATCH) };
  // Out of tokens while jobs wait for a free slot: come back when tokens have refilled.
  if (s.waiting > 0 && s.active < s.maxInFlight) {
    return { kind: 'wait', ms: Math.max(MIN_PACING_MS, s.msUntilToken) };
  }
  return { kind: 'wait', ms: null };
}

/**
 * The batch worth gathering tokens for: the creates of MIN_PACING_MS at the campaign's rate. A
 * token spent as soon as it refills makes a batch of one or two (each report wakes the loop), and
 * each batch costs a create activity, a finish activity and their workflow tasks, so tiny batches
 * fill the history. Waiting for this many loses no rate (the bucket keeps refilling).
 */
export function batchWorth(createsPerSecond: number, ms = MIN_PACING_MS): number {
  return Math.min(MAX_BATCH, Math.max(1, Math.floor((createsPerSecond * ms) / 1_000)));
}

/**
 * With heirs in batched finishes (docs/engine.md, "The ceiling"), the jobs of one create batch and
 * their heirs cycle together in one finish batch for the rest of the run, so each batch's
 * activity and workflow task are shared by as many jobs as it holds: creates gather this long of
 * the rate (at most MAX_BATCH) before they go, once, at the start of the window.
 */
export const HEIR_BATCH_MS = 250;

/**
 * Whether gathering `count` tokens first costs nothing: that many jobs wait and that many slots
 * are free, so the rate, not a slot, is what holds them. A free slot with fewer waiting (the
 * window binds, or the plan's end) is filled at once.
 */
function gathers(s: Situation, count: number): boolean {
  return s.waiting >= count && s.maxInFlight - s.active >= count;
}

/** The event count at which a run starts draining: room is left for each slot's last events. */
export function rollOverAt(maxInFlight: number): number {
  return Math.max(MIN_EVENTS_PER_RUN, MAX_EVENTS - EVENTS_PER_DRAINING_JOB * maxInFlight);
}

/**
 * Heirs only while the window binds, not the create rate: an heir is created when its
 * predecessor ends, so a campaign of heirs creates C / latency predictions a second. At or under
 * the service's rate that is what the window allows anyway, minus a workflow round trip per slot.
 * Never while draining, nor after a 429 until the limits have been read again.
 */
export function mayNameHeir(s: {
  readonly draining: boolean;
  readonly limitsStale: boolean;
  readonly latencyMs: number | null;
  readonly maxInFlight: number;
  readonly createsPerSecond: number;
}): boolean {
  return (
    !s.draining &&
    !s.limitsStale &&
    s.latencyMs !== null &&
    (s.maxInFlight * 1000) / s.latencyMs <= s.createsPerSecond * CHAIN_RATE_MARGIN
  );
}

/** Campaign-clock time between two memo updates while reports keep coming: about one a second. */
export const PUBLISH_EVERY_MS = 1_000;

/**
 * Whether to publish progress in the memo now, before the executor waits. At most about once a
 * second while reports keep coming (each update is a history event), but never left stale while
 * the campaign waits a long time with news unpublished: a burst of creates followed by minutes of
 * video generation would otherwise show the state from before the burst until the first video
 * ends. "A long time" is the wait itself when it has a length, else the expected gap until the
 * next report (jobs/occupancy.ts, expectedReportGapMs).
 */
export function mayPublish(s: {
  readonly sinceMs: number;
  /** Reports taken since the last publication (negative before the first one). */
  readonly unpublished: number;
  /** The coming wait's length, null when it lasts until a report. */
  readonly idleFor: number | null;
  readonly reportGapMs: number;
}): boolean {
  if (s.unpublished === 0) return false;
  if (s.sinceMs >= PUBLISH_EVERY_MS) return true;
  return (s.idleFor ?? s.reportGapMs) >= PUBLISH_EVERY_MS;
}
