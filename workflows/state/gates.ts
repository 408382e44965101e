/**
 * Review gates moving with the window (docs/engine.md, "Review gates"): what reading the plan,
 * a saved take, a cached job, a reviewer's batch, a timeout and a release do to the window, the
 * tally and the gates together, as functions over the campaign state's plain parts (the
 * campaign's moves in job-moves.ts call them); the gate bookkeeping is reviews.ts, its rules
 * review-rules.ts.
 */
import type { Micros } from '../../api/money.ts';
import type { CreateOutcome } from '../../contract/activities.ts';
import type { CarriedReviews, JobRef, StepInfo } from '../../contract/campaign.ts';
import type { DecisionRecord, ReviewAck, ReviewDecision } from '../../contract/review.ts';
import * as Budget from './budget.ts';
import { gated, refusalOf, ruleOf, type Span } from './review-rules.ts';
import * as Reviews from './reviews.ts';
import * as Stop from './stop.ts';
import * as Tally from './tally.ts';
import * as Window from './window.ts';

/** Plan indexes read per `loadJobs` when decisions release many: one read serves neighbours together. */
const RELEASE_PAGE = 500;

/** What a create found recorded for a cached job: its take and the decision recorded for it. */
export type Recorded = Omit<Extract<CreateOutcome, { kind: 'cached' }>, 'kind' | 'i'>;

/** The parts of the campaign state the gates read and move beside their own (plain data each). */
export interface GateParts {
  readonly steps: readonly StepInfo[];
  readonly window: Window.WindowState;
  readonly tally: Tally.TallyState;
  readonly budget: Budget.BudgetState;
  readonly halt: Stop.StopState;
  /** The gate bookkeeping (reviews.ts). */
  readonly reviews: Reviews.ReviewsState;
}

/** Jobs read from the plan; descendants of jobs awaiting review stay out, those of rejected ones are skipped. */
export function admit(p: GateParts, jobs: readonly JobRef[]): void {
  const { window, tally, reviews } = p;
  if (!Reviews.filters(reviews)) {
    Window.admit(window, jobs);
    return;
  }
  const kept = jobs.filter((job) => {
    if (Reviews.parks(reviews, job.i)) return false;
    if (!Reviews.skips(reviews, job.i)) return true;
    Tally.count(tally, job.step, 'skipped');
    return false;
  });
  Window.admit(window, kept, jobs.length);
  Reviews.prune(reviews, window.cursor);
}

/**
 * A take of a reviewed step is saved at campaign time `now` (`cached`: found recorded): it waits
 * for a decision, its descendants with it.
 */
export function saved(p: GateParts, job: JobRef, take: number, now: number, cached = false): void {
  if (!gated(p.steps, job.step)) return;
  Reviews.open(p.reviews, job, take, now, cached);
  if (job.end) Window.park(p.window, job.i, job.end);
}

/** A job found recorded: a decision recorded for its take applies again, else it is asked. */
export function cached(p: GateParts, job: JobRef, recorded: Recorded, now: number): void {
  if (!gated(p.steps, job.step)) return;
  const take = recorded.take ?? 0;
  if (!recorded.verdict) {
    saved(p, job, take, now, true);
    return;
  }
  const { action, prompt } = recorded.verdict;
  Reviews.recall(p.reviews, job, take, action, prompt, { now, cursor: p.window.cursor });
  if (action !== 'approve' && job.end) Window.park(p.window, job.i, job.end);
}

/** The job ended without an output (failed, skipped): a retake's descendants are skipped. */
export function closedWithoutOutput(p: GateParts, job: JobRef): void {
  Reviews.abandon(p.reviews, job.key, p.window.cursor);
}

/**
 * A reviewer's batch (the `review` update): each decision applies or is refused with its reason
 * (`ended`: the campaign has ended, and no decision applies; `dryRun`: judged only).
 */
export function review(
  p: GateParts,
  decisions: readonly ReviewDecision[],
  at: string,
  { ended, dryRun = false }: { readonly ended: boolean; readonly dryRun?: boolean },
): { ack: ReviewAck; records: DecisionRecord[] } {
  const { window, budget, halt, reviews } = p;
  const ack: { accepted: string[]; refused: ReviewAck['refused'][number][] } = {
    accepted: [],
    refused: [],
  };
  const records: DecisionRecord[] = [];
  /** Money the batch's accepted decisions may spend: each next one must fit beside it. */
  let spending: Micros = 0;
  for (const decision of decisions) {
    const gate = Reviews.gateOf(reviews, decision.key);
    const refusal = refusalOf(gate, decision, {
      rule: gate ? ruleOf(p.steps, gate.step) : null,
      generating: Window.unfinishedHas(window, decision.key),
      decided: Reviews.wasDecided(reviews, decision.key),
      fits: (usd) => !Stop.stopped(halt) && Budget.fits(budget, spending + usd),
      ended,
    });
    if (refusal || !gate) {
      ack.refused.push({ key: decision.key, ...(refusal ?? { reason: 'unknown_job', message: '' }) });
      continue;
    }
    spending +=
      decision.action === 'regenerate' ? gate.usd : decision.action === 'approve' ? gate.belowUsd : 0;
    ack.accepted.push(decision.key);
    if (dryRun) continue;
    records.push({ ...decision, take: gate.take, at, source: 'reviewer' });
    Reviews.accept(reviews, gate, decision.action, window.cursor, decision.prompt);
  }
  return { ack, records };
}

/** Earliest campaign-clock time a take awaiting review times out (null: none does). */
export function deadline(p: GateParts): number | null {
  return Reviews.deadline(p.reviews, p.steps);
}

/** Takes whose review timed out by campaign time `now`, decided by their step's on_timeout. */
export function timeOut(p: GateParts, now: number, at: string): DecisionRecord[] {
  return Reviews.timeOut(p.reviews, p.steps, now, at, p.window.cursor);
}

/** Plan indexes decisions released, to read again (a page at a time); undefined when none. */
export function nextRead(p: GateParts): Span | undefined {
  return Reviews.nextRead(p.reviews, RELEASE_PAGE);
}

/** Jobs read for released indexes: descendants run or are skipped, or a job is retaken. */
export function released(p: GateParts, span: Span, jobs: readonly JobRef[]): void {
  const { window, tally, reviews } = p;
  for (const { release, jobs: its } of Reviews.served(reviews, span, jobs)) {
    if (release.effect === 'admit')
      Window.readmit(
        window,
        its.filter((job) => !Reviews.parks(reviews, job.i)),
      );
    if (release.effect === 'skip') for (const job of its) Tally.count(tally, job.step, 'skipped');
    if (release.effect !== 'retake') continue;
    const regen = release.regen ?? 0;
    const prompt = release.prompt === undefined ? {} : { prompt: release.prompt };
    for (const job of its) {
      // The job is made again: it leaves the outcome its take was counted under until the new one ends.
      Tally.retake(tally, job.step, release.cached ? 'cached' : 'succeeded');
      Window.putBack(window, { job, regen, retake: true, retriesFrom: regen, ...prompt });
    }
  }
}

/** The takes awaiting a decision, per step. */
export function awaiting(p: GateParts): number[] {
  return Reviews.awaiting(p.reviews, p.steps);
}

/** Carried across continue-as-new only by campaigns with a gate. */
export function carry(p: GateParts): { reviews?: CarriedReviews } {
  return p.steps.some((step) => step.review) ? { reviews: Reviews.carry(p.reviews) } : {};
}
