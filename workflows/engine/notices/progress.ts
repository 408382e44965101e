/**
 * The campaign's progress as every reader sees it (contract/progress.ts), from one function: the
 * memo `status` reads, the result a finished campaign returns, the query a debugging client asks
 * and the notices' summaries. Each used to add its own extras (the memo named an outage's pause,
 * the query named nothing), so one campaign could show two states at once.
 */
import type { CampaignOutcome, CampaignProgress } from '../../../contract/campaign.ts';
import { capLine } from '../../../contract/caps.ts';
import { endedOf } from '../../../contract/ended-jobs.ts';
import { isDone } from '../jobs/occupancy.ts';
import { etaMs } from '../jobs/pace.ts';
import { atService, countByStep, inFlightUsd } from '../jobs/slots.ts';
import type { CampaignState, Model } from '../model.ts';
import * as Stop from '../money/stop.ts';
import { withPause } from '../pacing/outage.ts';
import * as Reviews from '../reviews/reviews.ts';
import * as Notices from './notices.ts';

/** The jobs' progress, the cap holding it, the notices' deliveries (when the campaign has targets) and the pause in force. */
export function progressOf(model: Model, campaign: string, now: number): CampaignProgress {
  const progress = campaignProgress(model.jobs, campaign, now);
  const hold = model.jobs.allowance?.hold;
  // Held by a cap, the campaign moves when another campaign's spend allows: no rate says when.
  const held =
    hold && progress.outcome === 'running'
      ? { ...progress, cap_reached: capLine(hold), etaMs: null }
      : progress;
  const told = model.notices ? { ...held, notifications: Notices.tally(model.notices) } : held;
  return withPause(told, model.run.outage.current);
}

/** The jobs' progress alone: what a canceled campaign returns. */
export function campaignProgress(s: CampaignState, campaign: string, now: number): CampaignProgress {
  const { steps, slots, window, budget, halt, tally, reviews, startedAt, runs } = s;
  const done = isDone(s);
  const { running, heirs } = countByStep(slots);
  // A named heir is running, not waiting: its predecessor's finish creates it at the service the
  // moment that prediction ends, with no decision of the campaign left (the ledger shows it made
  // while the workflow has not heard yet).
  for (const [step, n] of heirs.entries()) running[step]! += n;
  const awaiting = Reviews.awaiting(reviews, steps);
  const derived = Reviews.awaitingDerived(reviews, steps);
  const stopped = Stop.stopped(halt);
  // Nothing moves until a reviewer decides: outputs (or files made from them) wait for review,
  // nothing runs, nothing can start.
  const onlyReview =
    (awaiting.some((n) => n > 0) || derived.some((d) => d.awaiting > 0)) &&
    running.every((n) => n === 0) &&
    window.waiting.length === 0;
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
    inFlight: inFlightUsd(slots),
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
      stopped || onlyReview
        ? null
        : etaMs(
            s.pace,
            { steps, counts: tally.counts, latencyMs: tally.stepLatencyMs, atService: atService(slots) },
            now,
          ),
    runs,
    ...(derived.length > 0 ? { derivedAwaiting: derived } : {}),
  };
}
