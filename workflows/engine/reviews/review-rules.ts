/**
 * The rules of review gates as pure functions (table tests: test/engine/review-rules.test.ts):
 * whether a reviewer's decision can apply, when a waiting job times out, and which plan indexes a
 * decision releases. The state that moves with them is reviews.ts.
 */
import type { Micros } from '../../../api/money.ts';
import type { Release, StepInfo } from '../../../contract/campaign.ts';
import type { RefusalReason, ReviewAction, ReviewDecision } from '../../../contract/review.ts';
import type { ReviewRule } from '../../../plan/review.ts';

/** A job of a reviewed step whose output is saved: it waits for a decision (or is being retaken). */
export interface Gate {
  readonly i: number;
  readonly key: string;
  readonly step: number;
  /** Plan index just past its descendants (i + 1 when it has none). */
  readonly end: number;
  /** Its own price (a retake costs it again) and its descendants' (what an approval may spend). */
  readonly usd: Micros;
  readonly belowUsd: Micros;
  /** The regeneration counter of the take under review. */
  take: number;
  /** Campaign clock when the take's output was saved: its timeout counts from here. */
  since: number;
  /** A new take is being made: no decision applies until it is saved. */
  retaking: boolean;
  /** The take under review was found recorded by an earlier run (counted cached, not succeeded). */
  cached: boolean;
  /**
   * 0: the job's own output. n: its derivative of the step's n-th reviewed derive step
   * (StepInfo.derived), keyed by the derivative's key, with no descendants and no price.
   */
  readonly derived: number;
}

export interface Refusal {
  readonly reason: RefusalReason;
  readonly message: string;
}

export interface JudgeContext {
  readonly rule: ReviewRule | null;
  /** The job is read and not ended: still generating. */
  readonly generating: boolean;
  /** Decided earlier in this workflow run. */
  readonly decided: boolean;
  /** Does this much more money fit the budget, next to what this batch accepted already? */
  readonly fits: (usd: Micros) => boolean;
  readonly ended: boolean;
}

/** The step's outputs wait for a reviewer. */
export function gated(steps: readonly StepInfo[], step: number): boolean {
  return steps[step]!.review !== undefined;
}

/** The gate's review rule: its step's, or its derive step's; null when it has none. */
export function ruleOf(steps: readonly StepInfo[], gate: Pick<Gate, 'step' | 'derived'>): ReviewRule | null {
  const step = steps[gate.step]!;
  if (gate.derived === 0) return step.review ?? null;
  return step.derived?.[gate.derived - 1]?.review ?? null;
}

/** Some gate of these steps (a job's or a derivative's) may time out. */
export function timesOut(steps: readonly StepInfo[]): boolean {
  return steps.some((step) => step.review?.timeoutMs || step.derived?.some(({ review }) => review.timeoutMs));
}

/** Why `decision` cannot apply to `gate` now, or null when it can. */
export function refusalOf(gate: Gate | undefined, decision: ReviewDecision, c: JudgeContext): Refusal | null {
  if (c.ended)
    return { reason: 'campaign_ended', message: 'the campaign has ended: run the spec again to review' };
  if (!gate) {
    if (c.decided) return { reason: 'not_awaiting_review', message: 'decided already' };
    if (c.generating)
      return { reason: 'not_awaiting_review', message: 'still generating: no output to review yet' };
    return {
      reason: 'unknown_job',
      message: 'no job of a reviewed step awaits a decision under this key (unknown, or decided before)',
    };
  }
  if (gate.retaking) return { reason: 'not_awaiting_review', message: 'a new take is being generated' };
  if (gate.derived > 0 && decision.action === 'regenerate')
    return {
      reason: 'not_regenerable',
      message:
        "a derivative is made again only as the same bytes from the same operations: edit the derive step's operations (or regenerate the output it is made from)",
    };
  if (decision.prompt !== undefined && decision.action !== 'regenerate')
    return { reason: 'prompt_not_editable', message: 'a new prompt goes with a regeneration only' };
  if (decision.prompt !== undefined && !c.rule?.editPrompt)
    return {
      reason: 'prompt_not_editable',
      message: "this step's review does not allow a new prompt (edit_prompt)",
    };
  if (decision.action === 'regenerate' && !c.fits(gate.usd))
    return { reason: 'over_budget', message: 'a new take would pass budget.max_usd' };
  if (decision.action === 'approve' && !c.fits(gate.belowUsd))
    return { reason: 'over_budget', message: "this job's descendants would pass budget.max_usd" };
  return null;
}

/** Campaign-clock time when the gate's take times out, or null when it waits for ever. */
export function deadlineOf(gate: Gate, rule: ReviewRule | null): number | null {
  if (gate.retaking || !rule || rule.timeoutMs === null) return null;
  return gate.since + rule.timeoutMs;
}

/**
 * What a decision releases: an approval, its descendants read so far (they run); a rejection,
 * the same to skip; a regeneration, the job itself once more. Descendants the plan's cursor has
 * not reached yet are admitted (approved) or skipped (rejected) as they are read.
 */
export function releaseOf(
  gate: Gate,
  action: ReviewAction,
  cursor: number,
  prompt: string | undefined,
): Release | null {
  if (action === 'regenerate') {
    const counted = gate.cached ? { cached: true as const } : {};
    return {
      from: gate.i,
      count: 1,
      effect: 'retake',
      regen: gate.take + 1,
      ...counted,
      ...(prompt ? { prompt } : {}),
    };
  }
  const count = Math.min(gate.end, cursor) - (gate.i + 1);
  return count > 0 ? { from: gate.i + 1, count, effect: action === 'approve' ? 'admit' : 'skip' } : null;
}

/** Plan ranges [from, end): is `i` inside one? Ranges sorted by `from`, not overlapping. */
export function covers(starts: readonly number[], endOf: (from: number) => number, i: number): boolean {
  let low = 0;
  let high = starts.length - 1;
  let found = -1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (starts[middle]! < i) {
      found = middle;
      low = middle + 1;
    } else high = middle - 1;
  }
  return found >= 0 && i < endOf(starts[found]!);
}

const ACTIONS: readonly string[] = ['approve', 'reject', 'regenerate'];
const MAX_DECISIONS = 500;

/**
 * What is wrong with an update's argument, or null: the ReviewBatch schema's rules written out by
 * hand, since the workflow bundle does without zod (contract/review.ts; a test keeps them equal).
 */
export function batchProblem(value: unknown): string | null {
  const decisions = (value as { decisions?: unknown } | null)?.decisions;
  if (!Array.isArray(decisions) || decisions.length < 1 || decisions.length > MAX_DECISIONS)
    return `a review batch holds 1 to ${MAX_DECISIONS} decisions`;
  for (const [n, d] of decisions.entries()) {
    const text = (field: string, max: number, required = false) => {
      const v = (d as Record<string, unknown>)[field];
      if (v === undefined) return !required;
      return typeof v === 'string' && v.length >= 1 && v.length <= max;
    };
    if (typeof d !== 'object' || d === null) return `decision ${n + 1} is not an object`;
    if (!text('key', Number.POSITIVE_INFINITY, true)) return `decision ${n + 1} has no job key`;
    if (!ACTIONS.includes((d as { action?: unknown }).action as string))
      return `decision ${n + 1}: action must be approve, reject or regenerate`;
    if (!text('prompt', Number.POSITIVE_INFINITY))
      return `decision ${n + 1}: prompt must be a non-empty string`;
    if (!text('note', 2000) && (d as { note?: unknown }).note !== '')
      return `decision ${n + 1}: note must be a string of at most 2000 characters`;
    if (!text('by', 200) && (d as { by?: unknown }).by !== '')
      return `decision ${n + 1}: by must be a string of at most 200 characters`;
  }
  return null;
}

/** Plan indexes read in one `loadJobs` call. */
export interface Span {
  readonly from: number;
  readonly count: number;
}

/**
 * What to read next for the releases waiting: the first one (a page of it at most) and every other
 * one that fits in the same page, so a batch of decisions about neighbouring jobs is one read.
 */
export function spanOf(releases: readonly Release[], page: number): Span | undefined {
  const first = releases[0];
  if (!first) return undefined;
  const limit = first.from + page;
  let end = Math.min(first.from + first.count, limit);
  for (const { from, count } of releases)
    if (from >= first.from && from + count <= limit) end = Math.max(end, from + count);
  return { from: first.from, count: end - first.from };
}

/**
 * The releases a read of `span` served, each with its jobs, and those left (with what the read
 * did not reach of one it cut), in their order.
 */
export function splitRead<J extends { readonly i: number }>(
  releases: readonly Release[],
  span: Span,
  jobs: readonly J[],
): { served: { release: Release; jobs: J[] }[]; left: Release[] } {
  const end = span.from + span.count;
  const served: { release: Release; jobs: J[] }[] = [];
  const left: Release[] = [];
  for (const release of releases) {
    const releaseEnd = release.from + release.count;
    if (release.from < span.from || release.from >= end) {
      left.push(release);
      continue;
    }
    served.push({
      release,
      jobs: jobs.filter(({ i }) => i >= release.from && i < Math.min(releaseEnd, end)),
    });
    if (releaseEnd > end) left.push({ ...release, from: end, count: releaseEnd - end });
  }
  return { served, left };
}
