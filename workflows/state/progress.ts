/**
 * The progress snapshot of a campaign (contract/progress.ts), read off its parts: what the memo,
 * the query and the result carry.
 */
import type { CampaignOutcome, CampaignProgress, StepInfo } from '../../contract/campaign.ts';
import type { Budget } from './budget.ts';
import type { Reviews } from './reviews.ts';
import type { Slots } from './slots.ts';
import type { Stop } from './stop.ts';
import type { Tally } from './tally.ts';
import type { Window } from './window.ts';

interface Parts {
  readonly slots: Slots;
  readonly window: Window;
  readonly budget: Budget;
  readonly halt: Stop;
  readonly tally: Tally;
  readonly reviews: Reviews;
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
  const { running, heirs } = slots.countByStep();
  // Heirs are named but wait for their predecessor's slot: they count as waiting.
  const waiting = heirs;
  for (const { job } of window.waiting) waiting[job.step]!++;
  const finished = tally.finished();
  const remaining = jobCount - finished;
  const elapsed = now - startedAt;
  const awaiting = reviews.awaiting();
  const outcome: CampaignOutcome = done ? (halt.reason ?? 'completed') : 'running';
  return {
    campaign,
    outcome,
    steps: steps.map((step, index) => ({
      id: step.id,
      model: step.model,
      planned: step.jobCount,
      running: running[index]!,
      waiting: waiting[index]!,
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
    inFlight: slots.inFlightUsd(),
    budget: budget.limit,
    recentFailures: tally.recentFailures,
    stopMessage: halt.message,
    startedAt,
    submitting: !halt.stopped,
    at: now,
    // None once submission stopped: the jobs left will not run, so no time is left for them.
    etaMs:
      !halt.stopped && finished > 0 && remaining > 0 && elapsed > 0
        ? Math.round((elapsed / finished) * remaining)
        : null,
    runs,
  };
}
