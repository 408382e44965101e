/**
 * What one workflow run has under way, apart from the jobs themselves (campaign-state.ts): the
 * activities it is waiting for, whether it is draining for continue-as-new, how fresh its view of
 * the service's limits is, and what of its progress was published. Plain deterministic code,
 * moved only by the reducer (reducer/step.ts).
 */
import { Outage } from './outage.ts';

export class RunState {
  /** Create activities under way: their predictions must be known before a roll-over or cancel. */
  creating = 0;
  /** Finishes that create an heir: cancel waits for them, so the claims log names every heir. */
  chaining = 0;
  cancelled = false;
  /** The service's outage, if one is under way (outage.ts): creates pause, jobs wait. */
  readonly outage = new Outage();
  /** Set by a 429: the service's limits may have changed under us. */
  limitsStale = false;
  /** When the drain before continue-as-new began; null while running normally. */
  drainingSince: number | null = null;
  /** Activity reports taken so far, and how many of them the memo's progress includes. */
  reports = 0;
  publishedReports = -1;
  /** Campaign clock when progress was last published in the memo, and in search attributes. */
  publishedAt = Number.NEGATIVE_INFINITY;
  indexedAt = Number.NEGATIVE_INFINITY;

  /** Campaign clock when the limits were last read. */
  public limitsReadAt: number;

  constructor(limitsReadAt: number) {
    this.limitsReadAt = limitsReadAt;
  }

  get draining(): boolean {
    return this.drainingSince !== null;
  }

  drainLeftMs(now: number, maxDrainMs: number): number {
    return this.drainingSince === null ? 0 : this.drainingSince + maxDrainMs - now;
  }

  rateLimited(): void {
    this.limitsStale = true;
  }

  limitsRead(now: number): void {
    this.limitsStale = false;
    this.limitsReadAt = now;
  }
}
