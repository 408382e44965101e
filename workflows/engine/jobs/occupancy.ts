/**
 * How full the campaign is, read off its state without changing it: predictions in flight, jobs
 * waiting or not read yet, whether anything is left to do. The tick (engine/tick.ts), the caps
 * (workflows/engine/caps.ts) and the runtime ask these; what each event of a job does is
 * transitions.ts.
 */
import type { CampaignState } from '../model.ts';
import { stopped } from '../money/stop.ts';
import type { Standing } from '../reviews/decisions.ts';
import { busy } from '../reviews/reviews.ts';
import { countByStep } from './slots.ts';
import * as Window from './window.ts';

/** Predictions in flight at once: the campaign's own limit within the service's. */
export function maxInFlight(s: CampaignState): number {
  return Math.max(1, Math.min(s.concurrency, s.limits.maxInFlight));
}

/** How many more jobs the window wants from the plan (0 when full, finished or stopped). */
export function wanted(s: CampaignState): number {
  return stopped(s.halt) ? 0 : Window.wanted(s.window, s.jobCount, maxInFlight(s), s.chainsFirst);
}

/**
 * About how long until the next activity report: the shortest mean latency among the steps
 * with predictions in flight, spread over all of them (Infinity while a step's is unknown).
 */
export function expectedReportGapMs(s: CampaignState): number {
  const active = s.slots.activeCount;
  // Asked before every wait: with nothing in flight no report comes, and nothing need be counted.
  if (active === 0) return Number.POSITIVE_INFINITY;
  const { running } = countByStep(s.slots);
  let shortest = Number.POSITIVE_INFINITY;
  running.forEach((count, step) => {
    if (count > 0) shortest = Math.min(shortest, s.tally.stepLatencyMs[step] ?? Number.POSITIVE_INFINITY);
  });
  return shortest / active;
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
  return stopped(s.halt) || (Window.isRead(s.window, s.jobCount) && !busy(s.reviews));
}

/** What a reviewer's decision is judged against besides its gate (reviews/decisions.ts). */
export function standing(s: CampaignState): Standing {
  return { ended: isDone(s), generating: (key) => Window.unfinishedHas(s.window, key) };
}
