/**
 * Review gates moving with the window (docs/engine.md, "Review gates"): what reading the plan,
 * a saved take, a cached job, a reviewer's batch, a timeout and a release do to the window, the
 * tally and the gates together. CampaignState owns one and the executor reaches it as
 * `state.gates`; the gate bookkeeping is reviews.ts, its rules review-rules.ts.
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

/** The parts of the campaign state the gates move beside their own (plain data each). */
export interface GateParts {
  readonly window: Window.WindowState;
  readonly tally: Tally.TallyState;
  readonly budget: Budget.BudgetState;
  readonly halt: Stop.StopState;
}

export class Gates {
  /** The gate bookkeeping, plain data (reviews.ts). */
  readonly state: Reviews.ReviewsState;
  /** What callers read of the reviews: the takes awaiting a decision, per step. */
  readonly reviews: { readonly awaiting: () => number[] };

  private readonly steps: readonly StepInfo[];
  private readonly parts: GateParts;
  /** The campaign clock: takes time out on it. */
  private readonly now: () => number;
  /** Whether the campaign has ended (no decision applies then). */
  private readonly ended: () => boolean;

  constructor(
    steps: readonly StepInfo[],
    parts: GateParts,
    now: () => number,
    ended: () => boolean,
    carried: CarriedReviews | undefined,
  ) {
    this.steps = steps;
    this.parts = parts;
    this.now = now;
    this.ended = ended;

    const state = Reviews.reviewsOf(steps, carried);
    this.state = state;
    this.reviews = { awaiting: () => Reviews.awaiting(state, steps) };
  }

  private get cursor(): number {
    return this.parts.window.cursor;
  }

  /** Jobs read from the plan; descendants of jobs awaiting review stay out, those of rejected ones are skipped. */
  admit(jobs: readonly JobRef[]): void {
    const { window, tally } = this.parts;
    if (!Reviews.filters(this.state)) {
      Window.admit(window, jobs);
      return;
    }
    const kept = jobs.filter((job) => {
      if (Reviews.parks(this.state, job.i)) return false;
      if (!Reviews.skips(this.state, job.i)) return true;
      Tally.count(tally, job.step, 'skipped');
      return false;
    });
    Window.admit(window, kept, jobs.length);
    Reviews.prune(this.state, this.cursor);
  }

  /** A take of a reviewed step is saved (`cached`: found recorded): it waits for a decision, its descendants with it. */
  saved(job: JobRef, take: number, cached = false): void {
    if (!gated(this.steps, job.step)) return;
    Reviews.open(this.state, job, take, this.now(), cached);
    if (job.end) Window.park(this.parts.window, job.i, job.end);
  }

  /** A job found recorded: a decision recorded for its take applies again, else it is asked. */
  cached(job: JobRef, recorded: Recorded): void {
    if (!gated(this.steps, job.step)) return;
    const take = recorded.take ?? 0;
    if (!recorded.verdict) {
      this.saved(job, take, true);
      return;
    }
    const { action, prompt } = recorded.verdict;
    Reviews.recall(this.state, job, take, action, prompt, { now: this.now(), cursor: this.cursor });
    if (action !== 'approve' && job.end) Window.park(this.parts.window, job.i, job.end);
  }

  /** The job ended without an output (failed, skipped): a retake's descendants are skipped. */
  closedWithoutOutput(job: JobRef): void {
    Reviews.abandon(this.state, job.key, this.cursor);
  }

  /** A reviewer's batch (the `review` update): each decision applies or is refused with its reason (`dryRun`: judged only). */
  review(
    decisions: readonly ReviewDecision[],
    at: string,
    dryRun = false,
  ): { ack: ReviewAck; records: DecisionRecord[] } {
    const { window, budget, halt } = this.parts;
    const ack: { accepted: string[]; refused: ReviewAck['refused'][number][] } = {
      accepted: [],
      refused: [],
    };
    const records: DecisionRecord[] = [];
    const ended = this.ended();
    /** Money the batch's accepted decisions may spend: each next one must fit beside it. */
    let spending: Micros = 0;
    for (const decision of decisions) {
      const gate = Reviews.gateOf(this.state, decision.key);
      const refusal = refusalOf(gate, decision, {
        rule: gate ? ruleOf(this.steps, gate.step) : null,
        generating: Window.unfinishedHas(window, decision.key),
        decided: Reviews.wasDecided(this.state, decision.key),
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
      Reviews.accept(this.state, gate, decision.action, this.cursor, decision.prompt);
    }
    return { ack, records };
  }

  /** Earliest campaign-clock time a take awaiting review times out (null: none does). */
  deadline(): number | null {
    return Reviews.deadline(this.state, this.steps);
  }

  /** Takes whose review timed out, decided by their step's on_timeout. */
  timeOut(at: string): DecisionRecord[] {
    return Reviews.timeOut(this.state, this.steps, this.now(), at, this.cursor);
  }

  /** Plan indexes decisions released, to read again (a page at a time); undefined when none. */
  nextRead(): Span | undefined {
    return Reviews.nextRead(this.state, RELEASE_PAGE);
  }

  /** Jobs read for released indexes: descendants run or are skipped, or a job is retaken. */
  released(span: Span, jobs: readonly JobRef[]): void {
    const { window, tally } = this.parts;
    for (const { release, jobs: its } of Reviews.served(this.state, span, jobs)) {
      if (release.effect === 'admit')
        Window.readmit(
          window,
          its.filter((job) => !Reviews.parks(this.state, job.i)),
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

  /** Carried across continue-as-new only by campaigns with a gate. */
  carry(): { reviews?: CarriedReviews } {
    return this.steps.some((step) => step.review) ? { reviews: Reviews.carry(this.state) } : {};
  }
}
