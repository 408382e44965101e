/**
 * A run's campaign state, opened new or from what the last run carried across continue-as-new,
 * and what it carries in turn: the window's cursor and waiting jobs, the predictions in flight
 * (handed over, never created again), the tally, the money, the review gates and the caps.
 */
import type { Micros } from '../../../api/money.ts';
import type { CampaignOutcome, CarriedState, ServiceLimits, StepInfo } from '../../../contract/campaign.ts';
import type { CampaignState } from '../model.ts';
import * as Allowance from '../money/allowance.ts';
import { newBudget } from '../money/budget.ts';
import { type StopReason, stopOf } from '../money/stop.ts';
import * as Reviews from '../reviews/reviews.ts';
import { hold } from './holds.ts';
import { newPace } from './pace.ts';
import { stepHeights } from './selection.ts';
import { emptySlots, inFlight, nameHeir, occupy } from './slots.ts';
import { newTally } from './tally.ts';
import { openWindow } from './window.ts';

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
    window: openWindow(carried?.cursor ?? 0, carried?.waiting ?? []),
    slots: emptySlots(steps),
    budget: newBudget(budget, carried?.spent ?? 0),
    halt: stopOf(stopReasonOf(carried?.stopReason ?? null), carried?.stopMessage ?? null),
    tally: newTally(steps, carried),
    pace: newPace(steps.length, carried?.pace),
    reviews: Reviews.reviewsOf(steps, carried?.reviews),
    allowance: init.caps ? Allowance.allowanceOf(init.caps.carried) : null,
    limits: carried?.limits ?? init.limits,
    startedAt: carried?.startedAt ?? init.now,
    runs: (carried?.runs ?? 0) + 1,
  };
  for (const { pending, predictionId, startedAt, heir, paidBefore } of carried?.inFlight ?? []) {
    hold(s, pending);
    occupy(s.slots, pending, predictionId, startedAt, paidBefore && { paidBefore });
    if (heir) {
      hold(s, heir);
      nameHeir(s.slots, pending.job.i, heir);
    }
  }
  return s;
}

/**
 * The state to carry, but for the campaign clock, which the workflow adds. Only between creates:
 * a job still being created has no prediction id to hand over.
 */
export function carry(s: CampaignState): Omit<CarriedState, 'clock'> {
  const flights = inFlight(s.slots);
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
    pace: s.pace,
    // Carried only by campaigns with a gate.
    ...(s.steps.some((step) => step.review) && { reviews: Reviews.carry(s.reviews) }),
    ...(s.allowance && { caps: Allowance.carry(s.allowance) }),
  };
}

/** A carried outcome as a stop reason: null while the campaign ran on (never carried 'completed'). */
function stopReasonOf(outcome: CampaignOutcome | null): StopReason | null {
  return outcome === null || outcome === 'running' || outcome === 'completed' ? null : outcome;
}
