/**
 * The campaign's scheduling state, as plain deterministic code (no Temporal APIs), so it can be
 * unit-tested on its own and carried across continue-as-new. It is made of four parts, each with
 * its own verbs: the window over the plan (state/window.ts), the slots held at the service
 * (state/slots.ts), the money (state/budget.ts) and the tally of outcomes (state/tally.ts). This
 * class moves them together as each event of a job arrives; what a failure does is read from the
 * failure policy (contract/failure-policy.ts). Review gates (state/gates.ts) park jobs beside them.
 * Each part, the allowance of spend caps (state/allowance.ts) and the gates' bookkeeping
 * (state/reviews.ts) included, is plain data moved by free functions (issue 19): `parts()`.
 *
 * Longer than our files usually are, on purpose: it is the one place where an event of a job moves
 * several parts at once (a finish frees a slot, settles money, counts an outcome and may release a
 * window place), one verb per event; splitting it would scatter each event over files.
 */
import type { Micros } from '../api/money.ts';
import type { FinishOutcome } from '../contract/activities.ts';
import type {
  CampaignOutcome,
  CampaignProgress,
  CarriedState,
  InFlightJob,
  JobRef,
  PendingJob,
  ServiceLimits,
  StepCounts,
  StepInfo,
} from '../contract/campaign.ts';
import { effectOf, type FailureKind } from '../contract/failure-policy.ts';
import * as Allowance from './state/allowance.ts';
import * as Budget from './state/budget.ts';
import { CapsView } from './state/caps-view.ts';
import { Gates, type Recorded } from './state/gates.ts';
import { progressOf } from './state/progress.ts';
import * as Reviews from './state/reviews.ts';
import { longestChainsFirst, select, stepHeights } from './state/selection.ts';
import * as Slots from './state/slots.ts';
import * as Stop from './state/stop.ts';
import * as Tally from './state/tally.ts';
import * as Window from './state/window.ts';

/** Failure kinds counted under a name of their own besides `failed` or `regenerated` (StepCounts). */
const NAMED_FAILURES: Partial<Record<FailureKind, Tally.NamedCount>> = {
  download_failed: 'download_failed',
  download_stalled: 'download_stalled',
  output_expired: 'outputs_expired',
};

/** The parts of a campaign's state, each plain data (issue 19): what CampaignState moves together. */
export interface StateParts {
  readonly window: Window.WindowState;
  readonly slots: Slots.SlotsState;
  readonly budget: Budget.BudgetState;
  readonly halt: Stop.StopState;
  readonly tally: Tally.TallyState;
  readonly reviews: Reviews.ReviewsState;
  readonly allowance: Allowance.AllowanceState | null;
}

export class CampaignState {
  private readonly window: Window.WindowState;
  private readonly slots: Slots.SlotsState;
  private readonly budget: Budget.BudgetState;
  /** Why submission stopped, if it did (state/stop.ts). */
  private readonly halt: Stop.StopState;
  private readonly tally: Tally.TallyState;
  /** The campaign's part of its key's spend caps (state/allowance.ts); null: uncapped. */
  private readonly allowance: Allowance.AllowanceState | null;
  /** Review gates (state/gates.ts): the executor decides, times out and releases through them. */
  readonly gates: Gates;
  /** The allowance as the reducer reaches it (state/caps-view.ts); null: uncapped. */
  readonly caps: CapsView | null;
  limits: ServiceLimits;
  readonly startedAt: number;
  readonly runs: number;
  /** Steps below each step (selection.ts, stepHeights); all 0 keeps the plan's order. */
  private readonly heights: readonly number[];
  /** Parents go first (some step has steps below it and the campaign orders by chains). */
  private readonly chainsFirst: boolean;

  private readonly steps: readonly StepInfo[];
  private readonly jobCount: number;
  private readonly concurrency: number;

  constructor(
    steps: readonly StepInfo[],
    jobCount: number,
    concurrency: number,
    budget: Micros | null,
    init: {
      carried?: Omit<CarriedState, 'clock'> | undefined;
      limits: ServiceLimits;
      now: number;
      clock?: () => number;
      /** Jobs with the longest chains of steps below them go first (selection.ts); else plan order. */
      longestChainsFirst?: boolean;
      /** Spend caps hold the campaign (docs/caps.md): what it carried of them, if anything. */
      caps?: { readonly carried?: Allowance.CarriedAllowance | undefined };
    },
  ) {
    this.steps = steps;
    this.jobCount = jobCount;
    this.concurrency = concurrency;

    this.heights = init.longestChainsFirst ? stepHeights(steps.map((step) => step.from)) : steps.map(() => 0);
    this.chainsFirst = this.heights.some((height) => height > 0);
    const carried = init.carried;
    this.window = Window.openWindow(carried?.cursor ?? 0, carried?.waiting ?? []);
    this.slots = Slots.emptySlots(steps);
    this.budget = Budget.newBudget(budget, carried?.spent ?? 0);
    this.allowance = init.caps ? Allowance.allowanceOf(init.caps.carried) : null;
    this.caps = this.allowance && new CapsView(this.allowance);
    this.halt = Stop.stopOf(stopReasonOf(carried?.stopReason ?? null), carried?.stopMessage ?? null);
    this.tally = Tally.newTally(steps, carried);
    const clock = init.clock ?? (() => init.now);
    const parts = { window: this.window, tally: this.tally, budget: this.budget, halt: this.halt };
    this.gates = new Gates(steps, parts, clock, () => this.isDone(), carried?.reviews);
    for (const { pending, predictionId, startedAt, heir, paidBefore } of carried?.inFlight ?? []) {
      this.hold(pending);
      Slots.occupy(this.slots, pending, predictionId, startedAt, paidBefore && { paidBefore });
      if (heir) {
        this.hold(heir);
        Slots.nameHeir(this.slots, pending.job.i, heir);
      }
    }
    this.limits = carried?.limits ?? init.limits;
    this.startedAt = carried?.startedAt ?? init.now;
    this.runs = (carried?.runs ?? 0) + 1;
  }

  get cursor(): number {
    return this.window.cursor;
  }
  get spent(): Micros {
    return this.budget.spent;
  }
  get committed(): Micros {
    return this.budget.committed;
  }
  get stopReason(): CampaignOutcome | null {
    return this.halt.reason;
  }
  get counts(): readonly StepCounts[] {
    return this.tally.counts;
  }
  get recentFailures() {
    return this.tally.recentFailures;
  }
  get latencyMs(): number | null {
    return this.tally.latencyMs;
  }

  /** Predictions in flight at once: the campaign's own limit within the service's. */
  get maxInFlight(): number {
    return Math.max(1, Math.min(this.concurrency, this.limits.maxInFlight));
  }

  /** How many more jobs the window wants from the plan (0 when full, finished or stopped). */
  wanted(): number {
    return Stop.stopped(this.halt)
      ? 0
      : Window.wanted(this.window, this.jobCount, this.maxInFlight, this.chainsFirst);
  }

  /** Jobs read from the plan (review gates hold some back: state/gates.ts). */
  admit(jobs: readonly JobRef[]): void {
    this.gates.admit(jobs);
  }

  /** Takes up to `max` jobs to create now (state/selection.ts says which); they enter the window. */
  pick(max: number): PendingJob[] {
    const picked = this.take(max, this.maxInFlight - this.slots.activeCount);
    for (const pending of picked) Slots.occupy(this.slots, pending);
    return picked;
  }

  /**
   * Reserves the job that in-flight job `i` creates as soon as it ends (its heir), under the same
   * rules as pick but for the window: the heir takes over `i`'s slot rather than a new one.
   */
  reserveHeir(i: number): PendingJob | null {
    const [heir] = this.take(1, Number.POSITIVE_INFINITY);
    if (!heir) return null;
    Slots.nameHeir(this.slots, i, heir);
    return heir;
  }

  /** Job `i` has ended and its heir's create was attempted: the heir now holds the slot. */
  promoteHeir(i: number): void {
    Slots.promoteHeir(this.slots, i);
  }

  /** A heir created while the campaign was being canceled, and canceled upstream with it. */
  onCanceledHeir(heir: PendingJob): void {
    Tally.count(this.tally, heir.job.step, 'created');
    Tally.count(this.tally, heir.job.step, 'canceled');
  }

  observeWait(ms: number, step: number): void {
    Tally.observeWait(this.tally, ms, step);
  }

  /**
   * About how long until the next activity report: the shortest mean latency among the steps
   * with predictions in flight, spread over all of them (Infinity while a step's is unknown).
   */
  expectedReportGapMs(): number {
    const { running } = Slots.countByStep(this.slots);
    const active = this.slots.activeCount;
    let shortest = Number.POSITIVE_INFINITY;
    running.forEach((count, step) => {
      if (count > 0)
        shortest = Math.min(shortest, this.tally.stepLatencyMs[step] ?? Number.POSITIVE_INFINITY);
    });
    return active === 0 ? Number.POSITIVE_INFINITY : shortest / active;
  }

  activeCount(): number {
    return this.slots.activeCount;
  }

  /**
   * Waiting jobs; when longest chains go first, only those whose parent has ended: children of
   * jobs in flight would otherwise fill the window's quota and stop it reading the plan, while
   * their slots idled with nothing ready to take them.
   */
  waitingCount(): number {
    if (!this.chainsFirst) return this.window.waiting.length;
    return this.window.waiting.reduce(
      (n, { job }) => (Window.parentUnfinished(this.window, job) ? n : n + 1),
      0,
    );
  }

  /** Jobs not started yet: waiting in the window, or not read from the plan (spend caps ask no more). */
  unstarted(): number {
    return this.window.waiting.length + Math.max(0, this.jobCount - this.window.cursor);
  }

  /** True when nothing is left to do: every job ran, or submission stopped and flights landed. */
  isDone(): boolean {
    if (this.slots.activeCount > 0) return false;
    return (
      Stop.stopped(this.halt) ||
      (Window.isRead(this.window, this.jobCount) && !Reviews.busy(this.gates.state))
    );
  }

  pendingOf(i: number): PendingJob {
    return Slots.pendingOf(this.slots, i);
  }

  onCreated(i: number, predictionId: string, at: number, paid?: Slots.PaidBefore): void {
    Tally.count(this.tally, Slots.created(this.slots, i, predictionId, at, paid).job.step, 'created');
  }

  onCached(i: number, recorded: Recorded = {}): void {
    const { job } = this.release(i);
    Tally.count(this.tally, job.step, 'cached');
    this.gates.cached(job, recorded);
  }

  onSkipped(i: number): void {
    const { job } = this.release(i);
    Tally.count(this.tally, job.step, 'skipped');
    this.gates.closedWithoutOutput(job);
  }

  /** The service refused to create job `i` for good (`paid`: what a flagged take of an earlier run cost). */
  onRejected(i: number, message: string, kind: FailureKind, paid = 0): void {
    const pending = this.release(i);
    if (paid > 0) this.pay(pending, paid);
    const effect = effectOf(kind);
    if (effect.kind === 'on_refusal') {
      this.refused(pending, message);
      return;
    }
    if (effect.kind === 'stop_campaign' && effect.job === 'keep') {
      Window.putBack(this.window, pending);
      Stop.stop(this.halt, effect.outcome, message);
      return;
    }
    this.fail(pending.job, kind, message);
  }

  /**
   * Job `i` met a condition of the whole campaign (a full disk, a deleted key…): it stays to be
   * done by the next run, and no new job starts. Its prediction, if any, is claimed upstream and
   * adopted by that run rather than paid again.
   */
  stopWith(outcome: Stop.StopReason, message: string, keep: readonly number[] = []): void {
    for (const i of keep) Window.putBack(this.window, this.release(i));
    Stop.stop(this.halt, outcome, message);
  }

  /** Rate limited before creation: back to the front of the queue, nothing committed. */
  onRetry(i: number): void {
    Window.putBack(this.window, this.release(i));
  }

  onFinished(i: number, outcome: FinishOutcome, given?: FailureKind): void {
    // The outcome's own kind (a download's), else the caller's, else a failed prediction's.
    const kind = (outcome.kind === 'failed' ? outcome.failure : undefined) ?? given ?? 'prediction_failed';
    const pending = this.release(i);
    const { job, regen } = pending;
    if (outcome.kind === 'canceled') {
      Tally.count(this.tally, job.step, 'canceled');
      return;
    }
    // The service's own figure when it gives one; else the price we committed.
    this.pay(pending, outcome.creditsUsed ?? (outcome.kind === 'succeeded' ? job.usd : 0));
    if (outcome.kind === 'succeeded') {
      Tally.count(this.tally, job.step, 'succeeded');
      if (outcome.refreshed) Tally.note(this.tally, job.step, 'links_refreshed');
      this.gates.saved(job, regen);
      return;
    }
    const named = NAMED_FAILURES[kind];
    if (named) Tally.note(this.tally, job.step, named);
    const effect = effectOf(kind);
    if (effect.kind === 'on_refusal') {
      this.refused(pending, outcome.message);
      return;
    }
    if (
      effect.kind === 'regenerate' &&
      regen - (pending.retriesFrom ?? 0) < this.steps[job.step]!.retries &&
      !Stop.stopped(this.halt)
    ) {
      Tally.count(this.tally, job.step, 'regenerated');
      Window.putBack(this.window, { ...pending, regen: regen + 1 });
      return;
    }
    if (effect.kind === 'regenerate' && effect.endsAs)
      Tally.end(this.tally, this.steps, job, effect.endsAs, outcome.message);
    else Tally.fail(this.tally, this.steps, job, outcome.message);
    this.gates.closedWithoutOutput(job);
  }

  private pay(pending: PendingJob, paid: Micros): void {
    Budget.charge(this.budget, paid);
    if (this.allowance) Allowance.charge(this.allowance, this.modelOf(pending), paid);
    Tally.pay(this.tally, pending.job.step, paid);
  }

  /**
   * The service's content policy refused a take of the job (its prompt at create, its output after
   * processing): the step's `on_refusal` says what follows. A further take is a new regeneration (a
   * new seed, a new idempotency key) sent back to the queue, so the budget rule prices it like any
   * job; a fallback take is priced on its own model. When nothing is left to try, or submission has
   * stopped, the job ends refused and its descendants are skipped when they reach the create.
   */
  private refused(pending: PendingJob, message: string): void {
    const { job, regen } = pending;
    const rule = this.steps[job.step]!.onRefusal ?? { kind: 'skip' };
    const refusals = (pending.refusals ?? 0) + 1;
    const again =
      !Stop.stopped(this.halt) &&
      ((rule.kind === 'retry' && refusals <= rule.times) || (rule.kind === 'fallback' && refusals === 1));
    if (!again) {
      Tally.end(this.tally, this.steps, job, 'refused', message);
      this.gates.closedWithoutOutput(job);
      return;
    }
    Tally.count(this.tally, job.step, 'regenerated');
    // The take is a regeneration, but not one of `retries:` (which count failed predictions):
    // moving where they count from keeps all of them for the new take.
    const retriesFrom = (pending.retriesFrom ?? 0) + 1;
    const take: PendingJob = { ...pending, regen: regen + 1, refusals, retriesFrom };
    if (rule.kind !== 'fallback') Window.putBack(this.window, take);
    else
      Window.putBack(this.window, {
        ...take,
        model: rule.model,
        job: { ...job, usd: job.fallbackUsd ?? job.usd },
      });
  }

  /** The campaign was canceled: every job in flight ends as canceled, waiting ones stay unstarted. */
  cancelAll(): void {
    for (const i of Slots.activeIndexes(this.slots))
      Tally.count(this.tally, this.release(i).job.step, 'canceled');
    for (const heir of Slots.dropHeirs(this.slots)) this.unhold(heir);
    Stop.cancel(this.halt);
  }

  /** Jobs whose prediction exists and is being waited on. */
  inFlight(): InFlightJob[] {
    return Slots.inFlight(this.slots);
  }

  /**
   * The state to carry, but for the campaign clock, which the workflow adds. Only between creates:
   * a job still being created has no prediction id to hand over.
   */
  carry(): Omit<CarriedState, 'clock'> {
    const inFlight = this.inFlight();
    if (inFlight.length < this.slots.activeCount) throw new Error('continue-as-new with a create under way');
    return {
      cursor: this.window.cursor,
      waiting: this.window.waiting,
      inFlight,
      counts: this.tally.counts,
      spent: this.budget.spent,
      stepSpent: this.tally.spent,
      stopReason: this.halt.reason,
      stopMessage: this.halt.message,
      recentFailures: this.tally.recentFailures,
      startedAt: this.startedAt,
      runs: this.runs,
      limits: this.limits,
      latencyMs: this.tally.latencyMs,
      stepLatencyMs: this.tally.stepLatencyMs,
      ...this.gates.carry(),
      ...(this.allowance && { caps: Allowance.carry(this.allowance) }),
    };
  }

  /** The parts, each plain data: for tests, and for the step that makes this state one object. */
  parts(): StateParts {
    const { window, slots, budget, halt, tally, allowance } = this;
    return { window, slots, budget, halt, tally, reviews: this.gates.state, allowance };
  }

  progress(campaign: string, now: number): CampaignProgress {
    return progressOf(campaign, now, this.steps, this.jobCount, {
      slots: this.slots,
      window: this.window,
      budget: this.budget,
      halt: this.halt,
      tally: this.tally,
      reviews: this.gates.state,
      startedAt: this.startedAt,
      runs: this.runs,
      done: this.isDone(),
    });
  }

  /** Selects and holds jobs: the first that does not fit the budget stops submission for good. */
  private take(max: number, windowRoom: number): PendingJob[] {
    if (Stop.stopped(this.halt)) return [];
    const { picked, rest, budgetReached, capHeld } = select(
      longestChainsFirst(this.window.waiting, this.heights),
      {
        max,
        windowRoom,
        parentUnfinished: (job) => Window.parentUnfinished(this.window, job),
        stepRoom: (step) => Slots.stepRoom(this.slots, this.steps, step),
        fits: (usd, also) => Budget.fits(this.budget, usd, also),
        ...(this.allowance && { withinCap: (pending, picked) => this.withinCap(pending, picked) }),
      },
    );
    if (budgetReached) Stop.stop(this.halt, 'budget_reached');
    if (capHeld && this.allowance) Allowance.short(this.allowance, this.modelOf(capHeld), capHeld.job.usd);
    for (const pending of picked) this.hold(pending);
    this.window.waiting = rest;
    return picked;
  }

  /** A job about to be created: its price is committed, its step slot taken, its children wait. */
  private hold(pending: PendingJob): void {
    Window.hold(this.window, pending.job);
    Slots.take(this.slots, pending);
    Budget.commit(this.budget, pending.job.usd);
    if (this.allowance) Allowance.commit(this.allowance, this.modelOf(pending), pending.job.usd);
  }

  private unhold(pending: PendingJob): void {
    Window.end(this.window, pending.job);
    Slots.give(this.slots, pending);
    Budget.release(this.budget, pending.job.usd);
    if (this.allowance) Allowance.release(this.allowance, this.modelOf(pending), pending.job.usd);
  }

  /** The model a take runs on: its fallback's, or its step's. */
  private modelOf(pending: PendingJob): string {
    return pending.model ?? this.steps[pending.job.step]!.model;
  }

  private withinCap(pending: PendingJob, picked: readonly PendingJob[]): boolean {
    const model = this.modelOf(pending);
    const also = picked.reduce((sum, p) => (this.modelOf(p) === model ? sum + p.job.usd : sum), 0);
    return this.allowance === null || Allowance.fits(this.allowance, model, pending.job.usd, also);
  }

  private release(i: number): PendingJob {
    const pending = Slots.vacate(this.slots, i);
    this.unhold(pending);
    return pending;
  }

  private fail(job: JobRef, kind: FailureKind, message: string): void {
    Tally.fail(this.tally, this.steps, job, message);
    this.gates.closedWithoutOutput(job);
    const effect = effectOf(kind);
    if (effect.kind === 'stop_campaign') Stop.stop(this.halt, effect.outcome, message);
  }
}

/** A carried outcome as a stop reason: null while the campaign ran on (never carried 'completed'). */
function stopReasonOf(outcome: CampaignOutcome | null): Stop.StopReason | null {
  return outcome === null || outcome === 'running' || outcome === 'completed' ? null : outcome;
}
