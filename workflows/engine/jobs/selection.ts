/**
 * Which waiting jobs may be created now, as a pure function of the window, the slots and the
 * budget: the pacing rule of the campaign. A job is selected when its parent has ended, the
 * campaign window (for picks, not heirs) and its step have room, and its price fits the budget
 * next to what is spent and committed. The first job that does not fit the budget stops
 * submission for good: the campaign ends once in-flight work lands (decision 4).
 */
import type { Micros } from '../../../api/money.ts';
import type { JobRef, PendingJob } from '../../../contract/campaign.ts';

export interface SelectionRules {
  /** Most jobs to select. */
  readonly max: number;
  /** Room left in the campaign window; Infinity for heirs, which take over a slot. */
  readonly windowRoom: number;
  readonly parentUnfinished: (job: JobRef) => boolean;
  /** Slots the step has left before this selection. */
  readonly stepRoom: (step: number) => number;
  /** Does this price fit, next to `alsoCommitted` already selected? */
  readonly fits: (usd: Micros, alsoCommitted: Micros) => boolean;
  /**
   * Spend caps (workflows/engine/money/allowance.ts): does the job fit its reservation beside the jobs already
   * picked? Absent: uncapped. Unlike the budget, a job that does not fit only waits.
   */
  readonly withinCap?: (pending: PendingJob, picked: readonly PendingJob[]) => boolean;
}

export interface Selection {
  readonly picked: PendingJob[];
  /** The waiting list without the picked jobs, in its order. */
  readonly rest: PendingJob[];
  /** A job did not fit the budget: submission stops. */
  readonly budgetReached: boolean;
  /** The job a spend cap held back (it and the rest wait for more reservation); absent: none. */
  readonly capHeld?: PendingJob;
}

export function select(waiting: readonly PendingJob[], rules: SelectionRules): Selection {
  const picked: PendingJob[] = [];
  const rest: PendingJob[] = [];
  const takenPerStep = new Map<number, number>();
  let committed: Micros = 0;
  for (let index = 0; index < waiting.length; index++) {
    const pending = waiting[index]!;
    if (picked.length >= rules.max || picked.length >= rules.windowRoom) {
      rest.push(...waiting.slice(index));
      break;
    }
    const { job } = pending;
    const taken = takenPerStep.get(job.step) ?? 0;
    if (rules.parentUnfinished(job) || taken >= rules.stepRoom(job.step)) {
      rest.push(pending);
      continue;
    }
    if (!rules.fits(job.usd, committed)) {
      rest.push(...waiting.slice(index));
      return { picked, rest, budgetReached: true };
    }
    if (rules.withinCap && !rules.withinCap(pending, picked)) {
      rest.push(...waiting.slice(index));
      return { picked, rest, budgetReached: false, capHeld: pending };
    }
    takenPerStep.set(job.step, taken + 1);
    committed += job.usd;
    picked.push(pending);
  }
  return { picked, rest, budgetReached: false };
}

/**
 * How many steps lie below each step, on the longest chain (0 for a step nothing takes from):
 * `from[s]` is the step whose outputs step `s` takes, if any. Plans have no cycles; the walk
 * stops after as many steps as there are all the same.
 */
export function stepHeights(from: readonly (number | undefined)[]): number[] {
  const heights = from.map(() => 0);
  from.forEach((_, step) => {
    for (let up = from[step], below = 1; up !== undefined && below <= from.length; up = from[up], below++) {
      heights[up] = Math.max(heights[up]!, below);
    }
  });
  return heights;
}

/**
 * The waiting jobs with the longest chains below them first, in their order otherwise: critical
 * path first, as list schedulers do. A still whose video waits for it goes before videos whose
 * stills are done, so no still is left for the end, where its video would run alone while the
 * other slots idle (the window reads far ahead for it, window.ts). A copy; the same list when
 * every step is a leaf.
 */
export function longestChainsFirst(
  waiting: readonly PendingJob[],
  heights: readonly number[],
): readonly PendingJob[] {
  if (heights.every((height) => height === 0)) return waiting;
  // Array sorts are stable: jobs of one height keep their order.
  return waiting.toSorted((a, b) => heights[b.job.step]! - heights[a.job.step]!);
}
