/**
 * The campaign's scheduling state: one plain object (issue 19), carried as it is in the reducer's
 * model and JSON as it stands, so it can be unit-tested on its own. It is made of parts, each
 * plain data with its own verbs: the window over the plan (state/window.ts), the slots held at the
 * service (state/slots.ts), the money (state/budget.ts), why submission stopped (state/stop.ts),
 * the tally of outcomes (state/tally.ts), the review gates (state/gates.ts over state/reviews.ts)
 * and the campaign's part of its key's spend caps (state/allowance.ts). This file opens the state
 * and answers questions about it; what each event of a job does to it is job-moves.ts.
 */
import type { Micros } from '../api/money.ts';
import type {
  CampaignOutcome,
  CampaignProgress,
  CarriedState,
  InFlightJob,
  PendingJob,
  ServiceLimits,
  StepInfo,
} from '../contract/campaign.ts';
import * as Allowance from './state/allowance.ts';
import * as Budget from './state/budget.ts';
import * as Gates from './state/gates.ts';
import { progressOf } from './state/progress.ts';
import * as Reviews from './state/reviews.ts';
import { stepHeights } from './state/selection.ts';
import * as Slots from './state/slots.ts';
import * as Stop from './state/stop.ts';
import * as Tally from './state/tally.ts';
import * as Window from './state/window.ts';

export interface CampaignState extends Gates.GateParts {
  readonly jobCount: number;
  /** The campaign's own limit on predictions in flight (within the service's: maxInFlight). */
  readonly concurrency: number;
  /** Steps below each step (selection.ts, stepHeights); all 0 keeps the plan's order. */
  readonly heights: readonly number[];
  /** Parents go first (some step has steps below it and the campaign orders by chains). */
  readonly chainsFirst: boolean;
  readonly slots: Slots.SlotsState;
  /** The campaign's part of its key's spend caps; null: uncapped. */
  readonly allowance: Allowance.AllowanceState | null;
  limits: ServiceLimits;
  readonly startedAt: number;
  readonly runs: number;
}

/** A run's state: new, or from what the last run carried (`carried`). */
export function openCampaign(
  steps: readonly StepInfo[],
  jobCount: number,
  concurrency: number,
  budget: Micros | null,
  init: {
    carried?: Omit<CarriedState, 'clock'> | undefined;
    limits: ServiceLimits;
    now: number;
    /** Jobs with the longest chains of steps below them go first (selection.ts); else plan order. */
    longestChainsFirst?: boolean;
    /** Spend caps hold the campaign (docs/caps.md): what it carried of them, if anything. */
    caps?: { readonly carried?: Allowance.CarriedAllowance | undefined };
  },
): CampaignState {
  const heights = init.longestChainsFirst ? stepHeights(steps.map((step) => step.from)) : steps.map(() => 0);
  const carried = init.carried;
  const s: CampaignState = {
    steps,
    jobCount,
    concurrency,
    heights,
    chainsFirst: heights.some((height) => height > 0),
    window: Window.openWindow(carried?.cursor ?? 0, carried?.waiting ?? []),
    slots: Slots.emptySlots(steps),
    budget: Budget.newBudget(budget, carried?.spent ?? 0),
    halt: Stop.stopOf(stopReasonOf(carried?.stopReason ?? null), carried?.stopMessage ?? null),
    tally: Tally.newTally(steps, carried),
    reviews: Reviews.reviewsOf(steps, carried?.reviews),
    allowance: init.caps ? Allowance.allowanceOf(init.caps.carried) : null,
    limits: carried?.limits ?? init.limits,
    startedAt: carried?.startedAt ?? init.now,
    runs: (carried?.runs ?? 0) + 1,
  };
  for (const { pending, predictionId, startedAt, heir, paidBefore } of carried?.inFlight ?? []) {
    hold(s, pending);
    Slots.occupy(s.slots, pending, predictionId, startedAt, paidBefore && { paidBefore });
    if (heir) {
      hold(s, heir);
      Slots.nameHeir(s.slots, pending.job.i, heir);
    }
  }
  return s;
}

/** Predictions in flight at once: the campaign's own limit within the service's. */
export function maxInFlight(s: CampaignState): number {
  return Math.max(1, Math.min(s.concurrency, s.limits.maxInFlight));
}

/** How many more jobs the window wants from the plan (0 when full, finished or stopped). */
export function wanted(s: CampaignState): number {
  return Stop.stopped(s.halt) ? 0 : Window.wanted(s.window, s.jobCount, maxInFlight(s), s.chainsFirst);
}

/**
 * About how long until the next activity report: the shortest mean latency among the steps
 * with predictions in flight, spread over all of them (Infinity while a step's is unknown).
 */
export function expectedReportGapMs(s: CampaignState): number {
  const { running } = Slots.countByStep(s.slots);
  const active = s.slots.activeCount;
  let shortest = Number.POSITIVE_INFINITY;
  running.forEach((count, step) => {
    if (count > 0) shortest = Math.min(shortest, s.tally.stepLatencyMs[step] ?? Number.POSITIVE_INFINITY);
  });
  return active === 0 ? Number.POSITIVE_INFINITY : shortest / active;
}

export function activeCount(s: CampaignState): number {
  return s.slots.activeCount;
}

/**
 * Waiting jobs; when longest chains go first, only those whose parent has ended: children of
 * jobs in flight would otherwise fill the window's quota and stop it reading the plan, while
 * their slots idled with nothing ready to take them.
 */
export function waitingCount(s: CampaignState): number {
  if (!s.chainsFirst) return s.window.waiting.length;
  return s.window.waiting.reduce((n, { job }) => (Window.parentUnfinished(s.window, job) ? n : n + 1), 0);
}

/** Jobs not started yet: waiting in the window, or not read from the plan (spend caps ask no more). */
export function unstarted(s: CampaignState): number {
  return s.window.waiting.length + Math.max(0, s.jobCount - s.window.cursor);
}

/** True when nothing is left to do: every job ran, or submission stopped and flights landed. */
export function isDone(s: CampaignState): boolean {
  if (s.slots.activeCount > 0) return false;
  return Stop.stopped(s.halt) || (Window.isRead(s.window, s.jobCount) && !Reviews.busy(s.reviews));
}

/** Jobs whose prediction exists and is being waited on. */
export function inFlight(s: CampaignState): InFlightJob[] {
  return Slots.inFlight(s.slots);
}

/**
 * The state to carry, but for the campaign clock, which the workflow adds. Only between creates:
 * a job still being created has no prediction id to hand over.
 */
export function carry(s: CampaignState): Omit<CarriedState, 'clock'> {
  const flights = inFlight(s);
  if (flights.length < s.slots.activeCount) throw new Error('continue-as-new with a create under way');
  return {
    cursor: s.window.cursor,
    waiting: s.window.waiting,
    inFlight: flights,
    counts: s.tally.counts,
    spent: s.budget.spent,
    stepSpent: s.tally.spent,
    stopReason: s.halt.reason,
    stopMessage: s.halt.message,
    recentFailures: s.tally.recentFailures,
    startedAt: s.startedAt,
    runs: s.runs,
    limits: s.limits,
    latencyMs: s.tally.latencyMs,
    stepLatencyMs: s.tally.stepLatencyMs,
    ...Gates.carry(s),
    ...(s.allowance && { caps: Allowance.carry(s.allowance) }),
  };
}

export function progress(s: CampaignState, campaign: string, now: number): CampaignProgress {
  return progressOf(campaign, now, s.steps, s.jobCount, { ...s, done: isDone(s) });
}

/** The model a take runs on: its fallback's, or its step's. */
export function modelOf(s: CampaignState, pending: PendingJob): string {
  return pending.model ?? s.steps[pending.job.step]!.model;
}

/** A job about to be created: its price is committed, its step slot taken, its children wait. */
export function hold(s: CampaignState, pending: PendingJob): void {
  Window.hold(s.window, pending.job);
  Slots.take(s.slots, pending);
  Budget.commit(s.budget, pending.job.usd);
  if (s.allowance) Allowance.commit(s.allowance, modelOf(s, pending), pending.job.usd);
}

/** A carried outcome as a stop reason: null while the campaign ran on (never carried 'completed'). */
function stopReasonOf(outcome: CampaignOutcome | null): Stop.StopReason | null {
  return outcome === null || outcome === 'running' || outcome === 'completed' ? null : outcome;
}
