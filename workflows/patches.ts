/**
 * The campaign workflow's patches (docs/engine.md, "Changing the workflow safely"): each names a
 * change of decisions. New runs record its marker and take the new path; a history recorded
 * before has none and replays the old one. Each old path stays until no campaign can need it.
 * The rate governor's own patch is in governor/link.ts.
 */

/**
 * Progress is published in the memo, so clients read it from the server without a query (a query
 * answered by a worker that has not cached the run can make it apply part of a workflow task
 * early, and the task then carries commands a replay does not make: docs/engine.md, "Progress
 * without queries"). Histories recorded before this have no such events, hence the patch.
 */
export const PROGRESS_IN_MEMO = 'progress-in-memo';
/**
 * The outcome, counts and money are also upserted as search attributes (search-attributes.ts),
 * with the memo and only those that changed, so operators find campaigns with Temporal's own
 * tools. Only when the client found them registered (`input.searchAttributes`): an upsert of an
 * unregistered attribute fails the workflow task. Histories recorded before have no upserts.
 */
export const SEARCH_ATTRIBUTES = 'search-attributes';
/**
 * Chained campaigns pick the jobs with the longest chains below them first (state/selection.ts),
 * where they took the plan's order. Only inputs that name steps' `from` can: older ones do not.
 */
export const LONGEST_CHAINS_FIRST = 'longest-chains-first';
/** Runs drain from a higher ceiling (decide.ts, CEILINGS): histories recorded before drained lower. */
export const LONGER_RUNS = 'longer-runs';
/** Heirs from the first wave, at an assumed latency (decide.ts, ASSUMED_LATENCY_MS). */
export const EARLY_HEIRS = 'early-heirs';
/**
 * A create batch's jobs that name no heir are finished by one activity per step, not one each
 * (reactions.ts, finishAll), and a rate-bound campaign gathers a batch's worth of tokens before it
 * creates (decide.ts, batchWorth): a fraction of the history per job.
 */
export const BATCHED_FINISHES = 'batched-finishes';
/**
 * A campaign that ends (completed or stopped) removes what killed attempts left of its own jobs'
 * files (activities: sweepUnfinished), whoever started it: only an attached `run` did before, so
 * a detached campaign kept them. Histories recorded before end without that activity.
 */
export const SWEEP_AT_END = 'sweep-at-end';
