/**
 * The progress snapshot of a campaign (contract/progress.ts), read off its parts: what the memo,
 * the query and the result carry.
 */
import type { CampaignOutcome, CampaignProgress, StepInfo } from '../../contract/campaign.ts';
import { endedOf } from '../../contract/ended-jobs.ts';
import type { BudgetState } from './budget.ts';
import * as Reviews from './reviews.ts';
import * as Slots from './slots.ts';
import * as Stop from './stop.ts';
import * as Tally from './tally.ts';
import type { WindowState } from './window.ts';

interface Parts {
  readonly slots: Slots.SlotsState;
  readonly window: WindowState;
  readonly budget: BudgetState;
  readonly halt: Stop.StopState;
  readonly tally: Tally.TallyState;
  readonly reviews: Reviews.ReviewsState;
  readonly startedAt: number;
  readonly runs: number;
  readonly done: boolean;
}

export function progressOf(
  campaign: string,
  now: number,
  steps: readonly StepInfo[],
  jobCount: number,
  { slots, window, budget, halt, tally, reviews, startedAt, runs, done }: Parts,
): CampaignProgress {
  const { running, heirs } = Slots.countByStep(slots);
  // A named heir is running, not waiting: its predecessor's finish creates it at the service the
  // moment that prediction ends, with no decision of the campaign left (the ledger shows it made
  // while the workflow has not heard yet).
  for (const [step, n] of heirs.entries()) running[step]! += n;
  const finished = Tally.finished(tally);
  const remaining = jobCount - finished;
  const elapsed = now - startedAt;
  const awaiting = Reviews.awaiting(reviews, steps);
  const stopped = Stop.stopped(halt);
  // Nothing moves until a reviewer decides: outputs wait for review, nothing runs, nothing can start.
  const onlyReview =
    awaiting.some((n) => n > 0) && running.every((n) => n === 0) && window.waiting.length === 0;
  const outcome: CampaignOutcome = done ? (halt.reason ?? 'completed') : 'running';
  return {
    campaign,
    outcome,
    steps: steps.map((step, index) => ({
      id: step.id,
      model: step.model,
      planned: step.jobCount,
      running: running[index]!,
      // Every job the campaign can still run and has not started: read or not, ready or waiting
      // on its parent (or on its parent's review). None once submission stopped: those will not run.
      waiting: stopped ? 0 : Math.max(0, step.jobCount - endedOf(tally.counts[index]!) - running[index]!),
      ...tally.counts[index]!,
      spent: tally.spent[index]!,
      // Reviewed steps only, so the memos of campaigns without gates read as before.
      ...(step.review
        ? {
            awaiting_review: awaiting[index]!,
            approved: reviews.approved[index]!,
            rejected: reviews.rejectedCount[index]!,
          }
        : {}),
    })),
    spent: budget.spent,
    committed: budget.committed,
    inFlight: Slots.inFlightUsd(slots),
    budget: budget.limit,
    recentFailures: tally.recentFailures,
    stopMessage: halt.message,
    startedAt,
    // Not once the campaign ended either: nothing more will be submitted.
    submitting: !done && !stopped,
    at: now,
    // None once submission stopped (the jobs left will not run, so no time is left for them), nor
    // while the next move is a reviewer's: no rate of finishing says when a person decides.
    etaMs:
      !stopped && !onlyReview && finished > 0 && remaining > 0 && elapsed > 0
        ? Math.round((elapsed / finished) * remaining)
        : null,
    runs,
  };
}
