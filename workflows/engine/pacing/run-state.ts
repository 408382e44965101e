/**
 * What one workflow run has under way, apart from the jobs themselves (CampaignState): the
 * activities it is waiting for, whether it is draining for continue-as-new, how fresh its view of
 * the service's limits is, and what of its progress was published. Plain data in the model, moved
 * only by `step` (engine/step.ts).
 */
import { noOutage, type Outage } from './outage.ts';

export interface RunState {
  /** Create activities under way: their predictions must be known before a roll-over or cancel. */
  creating: number;
  /** Finishes that create an heir: cancel waits for them, so the claims log names every heir. */
  chaining: number;
  cancelled: boolean;
  /** The service's outage, if one is under way (outage.ts): creates pause, jobs wait. */
  readonly outage: Outage;
  /** Set by a 429: the service's limits may have changed under us. */
  limitsStale: boolean;
  /** When the drain before continue-as-new began; null while running normally. */
  drainingSince: number | null;
  /** Activity reports taken so far, and how many of them the memo's progress includes. */
  reports: number;
  publishedReports: number;
  /** Campaign clock when progress was last published in the memo, and in search attributes (null: never). */
  publishedAt: number | null;
  indexedAt: number | null;
  /** Campaign clock when the limits were last read. */
  limitsReadAt: number;
}

export function runState(limitsReadAt: number): RunState {
  return {
    creating: 0,
    chaining: 0,
    cancelled: false,
    outage: noOutage(),
    limitsStale: false,
    drainingSince: null,
    reports: 0,
    publishedReports: -1,
    publishedAt: null,
    indexedAt: null,
    limitsReadAt,
  };
}

export function draining(run: RunState): boolean {
  return run.drainingSince !== null;
}

export function drainLeftMs(run: RunState, now: number, maxDrainMs: number): number {
  return run.drainingSince === null ? 0 : run.drainingSince + maxDrainMs - now;
}

/** A 429: the service's limits may have changed under us. */
export function markLimitsStale(run: RunState): void {
  run.limitsStale = true;
}

export function markLimitsRead(run: RunState, now: number): void {
  run.limitsStale = false;
  run.limitsReadAt = now;
}
