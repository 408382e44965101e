/**
 * Review gates of a campaign (docs/spec-format.md, "Review gates"): the jobs whose output waits
 * for a reviewer, the descendants they hold back, and what decisions released. A waiting job
 * holds no slot and no window space: its descendants are dropped from the window (they are read
 * again from the plan once it is approved) and the window moves on. The rules are pure functions
 * in review-rules.ts; the functions here move the state, and reviews-carried.ts carries it
 * compactly across continue-as-new. The state is plain data.
 */

import type { Micros } from '../../../api/money.ts';
import type { Underived } from '../../../contract/activities.ts';
import type { CarriedReviews, JobRef, Release, StepInfo } from '../../../contract/campaign.ts';
import type { ReviewAction } from '../../../contract/review.ts';
import { covers, type Gate, releaseOf, type Span, spanOf, splitRead } from './review-rules.ts';
import { carriedGates, carriedOf } from './reviews-carried.ts';

export interface ReviewsState {
  /**
   * Jobs awaiting review (or being retaken) by key, in the order their gates opened: job keys are
   * never integer-like (32 hex characters), so the record keeps that order as a Map did.
   */
  readonly gates: Record<string, Gate>;
  /** How many gates are open: `busy` and `filters` read it at every event. */
  gateCount: number;
  /** How many of them are derivatives' (Gate.derived): a regeneration looks for its job's only then. */
  derivedCount: number;
  /** Plan indexes of the gates with descendants, sorted: those descendants are parked. */
  readonly starts: number[];
  /** Plan index just past the descendants of the gate at each of `starts`. */
  readonly ends: Record<number, number>;
  /** Keys decided in this run, to say "decided already" rather than "unknown" (not carried). */
  readonly decided: Record<string, true>;
  /** Descendants of rejected jobs the plan's cursor has not passed yet: skipped as they are read. */
  rejected: [number, number][];
  releases: Release[];
  readonly approved: number[];
  readonly rejectedCount: number[];
  /**
   * deadline()'s answer until a gate changes (when `earliestKnown`): the loop asks at every tick
   * and the review timer at every activation, and a scan of thousands of waiting takes each time
   * adds up.
   */
  earliest: number | null;
  earliestKnown: boolean;
}

export function reviewsOf(steps: readonly StepInfo[], carried?: CarriedReviews): ReviewsState {
  const r: ReviewsState = {
    gates: {},
    gateCount: 0,
    derivedCount: 0,
    starts: [],
    ends: {},
    decided: {},
    rejected: (carried?.rejected ?? []).map(([from, end]) => [from, end]),
    releases: [...(carried?.releases ?? [])],
    approved: steps.map((_, s) => carried?.approved[s] ?? 0),
    rejectedCount: steps.map((_, s) => carried?.rejectedCount[s] ?? 0),
    earliest: null,
    earliestKnown: false,
  };
  for (const gate of carriedGates(carried)) add(r, gate);
  return r;
}

/** Gates open or releases to read: the campaign is not done. */
export function busy(r: ReviewsState): boolean {
  return r.gateCount > 0 || r.releases.length > 0;
}

/** Jobs read from the plan may be held back or skipped: some gate is open or rejected range left. */
export function filters(r: ReviewsState): boolean {
  return r.gateCount > 0 || r.rejected.length > 0;
}

/**
 * The job's take is saved (`cached`: found recorded by an earlier run): it waits for a decision,
 * and its descendants wait with it.
 */
export function open(r: ReviewsState, job: JobRef, take: number, now: number, cached = false): void {
  const end = job.end ?? job.i + 1;
  openGate(r, { i: job.i, key: job.key, step: job.step, end, usd: job.usd, belowUsd: job.belowUsd ?? 0 }, 0, {
    take,
    now,
    cached,
  });
}

/**
 * The job's take is saved, and with it its derivatives: each of a reviewed derive step waits for a
 * decision, unless `verdicts` (what an earlier run recorded for this take) has one for it, or it
 * could not be made (`underived`: no file to decide on).
 */
export function openDerived(
  r: ReviewsState,
  job: JobRef,
  take: number,
  now: number,
  { verdicts, underived }: { verdicts?: readonly (ReviewAction | null)[]; underived?: Underived },
): void {
  (job.derived ?? []).forEach((key, n) => {
    const verdict = verdicts?.[n] ?? null;
    if (verdict !== null || underived?.includes(n)) return;
    const at = { i: job.i, key, step: job.step, end: job.i + 1, usd: 0, belowUsd: 0 };
    openGate(r, at, n + 1, { take, now, cached: verdicts !== undefined });
  });
}

function openGate(
  r: ReviewsState,
  at: { i: number; key: string; step: number; end: number; usd: Micros; belowUsd: Micros },
  derived: number,
  c: { take: number; now: number; cached: boolean },
): void {
  r.earliestKnown = false;
  const gate = r.gates[at.key];
  if (gate) {
    gate.take = c.take;
    gate.since = c.now;
    gate.retaking = false;
    gate.cached = c.cached;
    return;
  }
  add(r, { ...at, take: c.take, since: c.now, retaking: false, cached: c.cached, derived });
}

/** A descendant of a job awaiting review (or being retaken): it is not admitted now. */
export function parks(r: ReviewsState, i: number): boolean {
  return covers(r.starts, (from) => r.ends[from]!, i);
}

/** A descendant of a rejected job. */
export function skips(r: ReviewsState, i: number): boolean {
  return r.rejected.some(([from, end]) => i >= from && i < end);
}

/** Rejected ranges the cursor has passed are forgotten: nothing in them is read again. */
export function prune(r: ReviewsState, cursor: number): void {
  r.rejected = r.rejected.filter(([, end]) => end > cursor);
}

/** The gate of a job awaiting review (or being retaken), if any. */
export function gateOf(r: ReviewsState, key: string): Gate | undefined {
  return r.gates[key];
}

/** Decided earlier in this workflow run. */
export function wasDecided(r: ReviewsState, key: string): boolean {
  return r.decided[key] === true;
}

/** A decision recorded by an earlier run (the job was cached): applied again, not asked again. */
export function recall(
  r: ReviewsState,
  job: JobRef,
  take: number,
  action: ReviewAction,
  prompt: string | undefined,
  c: { now: number; cursor: number },
): void {
  if (action === 'approve') {
    r.approved[job.step]!++;
    return;
  }
  open(r, job, take, c.now, true);
  accept(r, r.gates[job.key]!, action, c.cursor, prompt);
}

/** A job being retaken failed for good: its descendants are skipped, as for a rejection. */
export function abandon(r: ReviewsState, key: string, cursor: number): void {
  const gate = r.gates[key];
  if (!gate?.retaking) return;
  close(r, gate, 'reject', cursor, undefined);
  // Its derivatives were of the take before: no take of the job stands, so none is asked about.
  for (const derived of derivedOf(r, gate)) close(r, derived, 'reject', cursor, undefined);
}

/** The open gates of a job's derivatives. */
function derivedOf(r: ReviewsState, gate: Gate): Gate[] {
  if (r.derivedCount === 0 || gate.derived > 0) return [];
  return Object.values(r.gates).filter((other) => other.derived > 0 && other.i === gate.i);
}

/** Plan indexes read per `loadJobs` when decisions release many: one read serves neighbours together. */
const RELEASE_PAGE = 500;

/** Plan indexes to read for the releases waiting (review-rules.ts, spanOf), a page at most; undefined when none. */
export function nextRead(r: ReviewsState): Span | undefined {
  return spanOf(r.releases, RELEASE_PAGE);
}

/** The jobs of a read: the releases it served, each with its jobs (the rest wait). */
export function served(
  r: ReviewsState,
  span: Span,
  jobs: readonly JobRef[],
): { release: Release; jobs: JobRef[] }[] {
  const { served, left } = splitRead(r.releases, span, jobs);
  r.releases = left;
  return served;
}

export function awaiting(r: ReviewsState, steps: readonly StepInfo[]): number[] {
  const counts = steps.map(() => 0);
  for (const gate of Object.values(r.gates)) if (!gate.retaking && gate.derived === 0) counts[gate.step]!++;
  return counts;
}

/**
 * Files of reviewed derive steps waiting for a decision, per derive step in the plan's order
 * (StepInfo.derived); those waiting for their parent's new take are not asked about yet.
 */
export function awaitingDerived(
  r: ReviewsState,
  steps: readonly StepInfo[],
): { step: string; awaiting: number }[] {
  const counts = steps.map((step) => (step.derived ?? []).map(() => 0));
  if (r.derivedCount > 0)
    for (const gate of Object.values(r.gates))
      if (!gate.retaking && gate.derived > 0) counts[gate.step]![gate.derived - 1]!++;
  return steps.flatMap((step, s) =>
    (step.derived ?? []).map(({ id }, n) => ({ step: id, awaiting: counts[s]![n]! })),
  );
}

export function carry(r: ReviewsState): CarriedReviews {
  const { rejected, releases, approved, rejectedCount } = r;
  return carriedOf(Object.values(r.gates), { rejected, releases, approved, rejectedCount });
}

/** A decision applies: the gate closes (its descendants released) or a new take is asked for. */
export function accept(
  r: ReviewsState,
  gate: Gate,
  action: ReviewAction,
  cursor: number,
  prompt: string | undefined,
): void {
  r.earliestKnown = false;
  r.decided[gate.key] = true;
  // The steps' counts are their jobs': a derivative's decision is told by its record (cli/derive-tally.ts).
  if (action === 'approve' && gate.derived === 0) r.approved[gate.step]!++;
  if (action === 'reject' && gate.derived === 0) r.rejectedCount[gate.step]!++;
  if (action === 'regenerate') {
    gate.retaking = true;
    // Its derivatives are made again from the new take, and asked about again then.
    for (const derived of derivedOf(r, gate)) derived.retaking = true;
    r.releases.push(releaseOf(gate, action, cursor, prompt)!);
    return;
  }
  close(r, gate, action, cursor, prompt);
}

function close(
  r: ReviewsState,
  gate: Gate,
  action: 'approve' | 'reject',
  cursor: number,
  prompt: string | undefined,
): void {
  r.earliestKnown = false;
  delete r.gates[gate.key];
  r.gateCount--;
  if (gate.derived > 0) r.derivedCount--;
  if (gate.end > gate.i + 1) {
    r.starts.splice(r.starts.indexOf(gate.i), 1);
    delete r.ends[gate.i];
  }
  const release = releaseOf(gate, action, cursor, prompt);
  if (release) r.releases.push(release);
  if (action === 'reject' && gate.end > cursor) r.rejected.push([Math.max(cursor, gate.i + 1), gate.end]);
}

function add(r: ReviewsState, gate: Gate): void {
  r.earliestKnown = false;
  if (r.gates[gate.key] === undefined) {
    r.gateCount++;
    if (gate.derived > 0) r.derivedCount++;
  }
  r.gates[gate.key] = gate;
  if (gate.end <= gate.i + 1) return;
  let at = r.starts.length;
  while (at > 0 && r.starts[at - 1]! > gate.i) at--;
  r.starts.splice(at, 0, gate.i);
  r.ends[gate.i] = gate.end;
}
